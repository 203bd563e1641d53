#!/usr/bin/python3
"""A model trained in PyTorch, saved as .npy files, for attnlab to load (issue 11's round trip).

Run from the repository root with Debian's PyTorch 1.13 (package python3-torch):

    /usr/bin/python3 scripts/make_trained_model_golden.py

Trains the course's positions classifier (script 13's, learned positions, as
scripts/course_models.py states it) for EPOCHS epochs as the course trains it (AdamW lr 3e-3,
clip 1.0, batches of 64 shuffled after torch.manual_seed(0)), then writes under
data/models/trained_positions/:
  state_dict/<key>.npy   every state_dict tensor, numpy.save(v.numpy()): what a PyTorch user does
  tokens.npy             the first N_EVAL validation sequences (make_sequences(2000, seed=1)), int32
  logits.npy             PyTorch's eval-mode logits for them, float32 (N_EVAL, 2)
  labels.npy             their labels, int32
plus generated_by.txt naming this script, the torch version and the validation accuracy.
"""
import os
import sys

import numpy
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from course_models import PositionsModel, fresh, loaders, train  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "models", "trained_positions")
EPOCHS = 3
N_EVAL = 256


def main():
    train_loader, val_loader = loaders()
    X_va, y_va = val_loader.dataset.tensors
    model = fresh(lambda: PositionsModel(use_positions=True))
    accuracy = train(model, train_loader, val_loader, epochs=EPOCHS)  # leaves the model in eval mode
    with torch.no_grad():
        logits = model(X_va[:N_EVAL])
    os.makedirs(os.path.join(OUT, "state_dict"), exist_ok=True)
    for k, v in model.state_dict().items():
        numpy.save(os.path.join(OUT, "state_dict", k + ".npy"), v.numpy())
    numpy.save(os.path.join(OUT, "tokens.npy"), X_va[:N_EVAL].numpy().astype(numpy.int32))
    numpy.save(os.path.join(OUT, "labels.npy"), y_va[:N_EVAL].numpy().astype(numpy.int32))
    numpy.save(os.path.join(OUT, "logits.npy"), logits.numpy())
    with open(os.path.join(OUT, "generated_by.txt"), "w") as f:
        f.write("scripts/make_trained_model_golden.py with torch %s: the course's positions classifier "
                "trained %d epochs, validation accuracy %.4f\n" % (torch.__version__, EPOCHS, accuracy))
    print("wrote", OUT, "accuracy %.4f" % accuracy)


if __name__ == "__main__":
    main()
