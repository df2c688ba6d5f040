"""How every shipped model file was made: data preparation, training and export, one script a step,
run from the repository root as ``python -m training.<name>``. The public data sets are read from
the folder ``$RAGEVAL_DATA`` names (:mod:`training.data`); torch is used only by
``train_nli_adapter`` and ``make_minilm_reference``, in a throw-away environment. Not part of the
installed package; rageval reads only what these scripts wrote to ``rageval/models/``."""
