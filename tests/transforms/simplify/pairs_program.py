"""The program both simplify test files run on operand pairs: ``main`` reads n, then n pairs
(``a``, ``b`` by default) and runs ``body`` (PIR lines, already indented) on each pair."""


def pairs_program(body: str, a: str = "a", b: str = "b") -> str:
    return f"""func main() {{
entry:
    n = input
    br loop
loop:
    c = cmp.gt n, 0
    cbr c, next, done
next:
    {a} = input
    {b} = input
{body}
    n = sub n, 1
    br loop
done:
    ret 0
}}
"""
