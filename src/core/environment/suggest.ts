// Moved to util/ so every area (Harbor's task.toml too) can suggest a close name: kept here for the existing imports.
export { didYouMean, editDistance } from "../util/suggest";
