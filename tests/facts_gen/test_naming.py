"""facts_gen.naming: instruction ids and their inverse (the passes read blocks off ids)."""
from hypothesis import given, strategies as st

from facts_gen.extract import extract_module
from facts_gen.naming import instr_block, instr_id, instr_site
from pylogic.ir.parser import parse_module

LABELS = st.from_regex(r"[A-Za-z_.$][A-Za-z0-9_.$]{0,12}", fullmatch=True)


@given(LABELS, st.integers(min_value=0, max_value=10**6))
def test_instr_site_inverts_instr_id(label, index):
    iid = instr_id(label, index)
    assert instr_site(iid) == (label, index)
    assert instr_block(iid) == label


def test_instr_site_refuses_other_ids():
    assert instr_site("b3#branch") is None
    assert instr_site("b3") is None


def test_ids_of_extracted_facts_name_their_instructions():
    module = parse_module("""
func @main() {
entry:
  x = add 1, 2
  cbr x, a, b
a:
  print x
  br b
b:
  ret 0
}
""", "t.pir")
    facts = extract_module(module, "t.pir")
    fn = module.function_map()["@main"]
    blocks = fn.block_map()
    ids = {row[1] for row in facts["instr"]}
    assert ids and all(instr_site(i) is not None for i in ids)
    for i in ids:
        label, k = instr_site(i)
        assert k < len(blocks[label].instrs)
    assert len(ids) == sum(len(b.instrs) for b in fn.blocks)
