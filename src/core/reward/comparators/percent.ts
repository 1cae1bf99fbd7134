import { compareQuantity } from "./number";

/** Percentages: "30.8%" = "30.8 percent" = "0.308"; a money amount never matches. */
export const comparePercent = compareQuantity("percent");
