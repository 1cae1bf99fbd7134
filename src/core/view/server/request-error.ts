/** A request the caller got wrong (bad params, a path outside the root): shown to the user as is. */
export class ViewRequestError extends Error {}
