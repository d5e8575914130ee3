"""Dead code elimination by marking: ``dce`` (datalog/dce.dl)."""
