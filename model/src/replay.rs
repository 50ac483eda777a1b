//! Replay of TLC behaviours in the model.
