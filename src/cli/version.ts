declare const __RLENV_VERSION__: string | undefined;
/** Injected by esbuild from package.json; "dev" when run from source. */
export const VERSION: string = typeof __RLENV_VERSION__ === "string" ? __RLENV_VERSION__ : "dev";
