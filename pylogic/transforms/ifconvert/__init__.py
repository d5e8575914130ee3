"""If-conversion (IMPACT hyperblock formation): ``if-convert``; its regions come from
``transforms/regions.py``, which predicated CP's hyperblock emission shares."""
