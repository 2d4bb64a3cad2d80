"""The shipped models: ONNX files, each with its JSON report (thresholds, sizes, figures), and
their model card (README.md). Data, no code: `vision` finds them through this package
(`importlib.resources`), in a checkout and from an installed wheel alike. The `.pt` files
beside them are the same weights for torch, the trainings' warm starts; the wheel leaves
them out. What makes, trains, scores and describes them is `training/`, run from a checkout."""
