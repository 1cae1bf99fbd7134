import { compareQuantity } from "./number";

/** Money amounts: "$1,577 million" = "1577.00" = "$1.577 billion"; "(370)" is −370. */
export const compareMoney = compareQuantity("money");
