export { bandChanges, compareRuns } from "./compare";
export { bootstrapMeanInterval, passHatK, signTest } from "./estimators";
export { type ReportRollout, readReportRollouts } from "./read-rollouts";
export { bandOf, buildReadiness, type ReadinessMeta } from "./readiness";
export { renderReportHtml } from "./render-html";
export { renderComparisonText, renderReportText } from "./render-text";
export { readConcurrencyDecisions, readinessOf, reportForRun, tasksInBand } from "./run-report";
