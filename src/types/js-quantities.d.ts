// The part of js-quantities (MIT, no dependencies) the unit-aware comparators use; the package ships no types.
declare module "js-quantities" {
  interface Qty {
    readonly scalar: number;
    units(): string;
    kind(): string;
    isCompatible(other: Qty | string): boolean;
    to(unit: string | Qty): Qty;
    toBase(): Qty;
  }
  interface QtyStatic {
    (value: string): Qty;
    (value: number, unit: string): Qty;
    /** Null where the text is not a quantity it knows (the constructor throws). */
    parse(value: string): Qty | null;
  }
  const Qty: QtyStatic;
  export default Qty;
}
