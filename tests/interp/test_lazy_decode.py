"""Functions are decoded on their first call (issue #12 item 3), with the same results."""
from pylogic.interp.machine import Machine
from pylogic.ir.parser import parse_module

PROGRAM = """
func never(x) {
entry:
    y = div x, 0
    ret y
}

func twice(x) {
entry:
    y = add x, x
    ret y
}

func main(n) {
entry:
    big = cmp.gt n, 100
    cbr big, far, near
far:
    a = call never(n)
    print a
    ret 1
near:
    b = call twice(n)
    print b
    ret 0
}
"""


def test_only_called_functions_are_decoded():
    machine = Machine(parse_module(PROGRAM, "lazy.pir"))
    assert not machine.code
    result = machine.run("main", args=(5,))
    assert result.prints == [10] and result.error is None
    assert sorted(machine.code) == ["main", "twice"]
    # A later run that reaches the other function decodes it then, and faults as IR.md says.
    result = machine.run("main", args=(500,))
    assert result.error is not None and "division by zero" in str(result.error)
    assert sorted(machine.code) == ["main", "never", "twice"]


def test_profiles_follow_module_order_whatever_the_decode_order():
    machine = Machine(parse_module(PROGRAM, "lazy.pir"))
    machine.run("main", args=(500,))
    result = machine.run("main", args=(5,))
    order = ["never", "twice", "main"].index
    blocks = [name for name, _ in result.block_profile]
    assert blocks == sorted(blocks, key=order) and blocks[0] == "twice"
    assert result.block_profile[("twice", "entry")] == 1
