"""What makes the shipped models' data, trains them, scores them and describes them; never
part of the installed product (it runs from a checkout: `pip install -e '.[train]'` brings
torch). It writes into `models/` (the ONNX files, their JSON reports, the model card) and
stands on the product (`vision`) and the simulator (`simulator`); nothing stands on it.

Run as `python -m training.NAME`; the trainings need the `train` extra (torch):
- `classifier_train`, `expert_train`: the card classifier and its index experts
- `detect_train`, `pile_train`: the card detector and the pile network
- `refine_train`: the outline refiner (`--measure-only`: its figures again)
- `threshold`: the classifier's thresholds, fitted behind the shipped detector and refiner
- `model_card`: models/README.md, from the reports

Data, without torch: `classifier_data`, `expert_data`, `detect_data`, `pile_data`,
`refine_data`, on `data` (seeded parallel chunks, the cache) and `designs` (which designs
train, calibrate and test). Scoring, without torch: `evaluate`. What the trainings share:
`training` (tensors, warm starts, the command line, the loop that names images) and
`scene_training` (the detector's network, trained on rendered scenes or crops of them).
"""
