"""Random structured PIR programs for the deadness and PDE tests: straight-line code, if/else and
bounded loops over a few registers, with prints and returns, so that definitions are live on some
paths and dead on others. Deterministic per seed; every program terminates on every input."""
from __future__ import annotations

import random

REGS = ("r0", "r1", "r2", "r3")
OPS = ("add", "sub", "mul", "xor", "and", "or", "shl")


def random_program(seed: int, size: int = 12) -> str:
    """PIR text of ``func main(a, b)``: about ``size`` statements, nesting at most 2."""
    rng = random.Random(seed)
    lines: list[str] = []
    labels = iter(range(10_000))

    def fresh(stem: str) -> str:
        return f"{stem}{next(labels)}"

    def operand() -> str:
        return rng.choice(REGS + ("a", "b", str(rng.randint(-3, 9))))

    def statements(n: int, depth: int, block: list) -> None:
        for _ in range(n):
            roll = rng.random()
            if roll < 0.55 or depth >= 2:
                dest = rng.choice(REGS)
                if rng.random() < 0.2:
                    block.append(f"    {dest} = mov {operand()}")
                else:
                    block.append(f"    {dest} = {rng.choice(OPS)} {operand()}, {operand()}")
            elif roll < 0.7:
                block.append(f"    print {rng.choice(REGS)}")
            elif roll < 0.9:
                then, other, join = fresh("then"), fresh("else"), fresh("join")
                c = fresh("c")
                block.append(f"    {c} = cmp.{rng.choice(['lt', 'gt', 'eq', 'ne'])} "
                             f"{rng.choice(REGS + ('a', 'b'))}, {rng.randint(-2, 4)}")
                block.append(f"    cbr {c}, {then}, {other}")
                lines.extend(block)
                block.clear()
                for label in (then, other):
                    block.append(f"{label}:")
                    statements(rng.randint(1, 3), depth + 1, block)
                    block.append(f"    br {join}")
                    lines.extend(block)
                    block.clear()
                block.append(f"{join}:")
            else:
                head, body, out = fresh("head"), fresh("body"), fresh("out")
                k, c = fresh("k"), fresh("c")
                block.append(f"    {k} = mov 0")
                block.append(f"    br {head}")
                lines.extend(block)
                block.clear()
                block.append(f"{head}:")
                block.append(f"    {c} = cmp.lt {k}, {rng.randint(1, 3)}")
                block.append(f"    cbr {c}, {body}, {out}")
                lines.extend(block)
                block.clear()
                block.append(f"{body}:")
                statements(rng.randint(1, 3), depth + 1, block)
                block.append(f"    {k} = add {k}, 1")
                block.append(f"    br {head}")
                lines.extend(block)
                block.clear()
                block.append(f"{out}:")

    block = ["entry:"] + [f"    {r} = add a, {j}" for j, r in enumerate(REGS)]
    statements(size, 0, block)
    block.append(f"    print {rng.choice(REGS)}")
    block.append(f"    ret {rng.choice(REGS)}")
    lines.extend(block)
    return "func main(a, b) {\n" + "\n".join(lines) + "\n}\n"
