"""The claim engine's learned offline verifier: language cues, features, the NumPy model, verdicts."""
