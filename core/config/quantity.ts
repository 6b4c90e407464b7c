/**
 * Kubernetes resource quantities as numbers, to compare them (requests ≤ limits). The grammar is
 * checked by `quantity` in schema.ts; this only reads strings that passed it. Exact enough for
 * comparison: binary suffixes are powers of 1024, decimal ones powers of 1000, `m` is 1/1000.
 */
/** Multipliers; the negative entries are decimal exponents (milli and below). */
const SUFFIX: Record<string, number> = {
    n: -9,
    u: -6,
    m: -3,
    "": 1,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    P: 1e15,
    E: 1e18,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
    Pi: 2 ** 50,
    Ei: 2 ** 60,
};

const QUANTITY = /^\+?([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/;

/** The value of a quantity (`512Mi` → 536870912, `250m` → 0.25, `1e3` → 1000); undefined when it is not one. */
export function parseQuantity(q: string): number | undefined {
    const m = QUANTITY.exec(q);
    if (!m) return undefined;
    const value = Number(m[1]);
    const suffix = m[2] ?? "";
    if (/^[eE]/.test(suffix)) return scale(value, Number(suffix.slice(1)));
    return SUFFIX[suffix] < 0 ? scale(value, SUFFIX[suffix]) : value * SUFFIX[suffix];
}

/** value × 10^exp, dividing for negative exponents (100 / 1e9 is exact where 100 × 1e-9 is not). */
function scale(value: number, exp: number): number {
    return exp < 0 ? value / 10 ** -exp : value * 10 ** exp;
}
