export { fleetTaskSchema, parseTaskFile, TaskFileError, type FleetTask, type QueuedTask } from "./task.js";
export { DEFAULT_QUEUE } from "./connection.js";
export { submitTasks, queueStatus, taskRecords, cancelWaiting, cleanFinished, type FinishedState, type FleetJobData, type JobCounts, type TaskRecord, type SubmitSummary } from "./submit.js";
export { runWorker, parseRate, parseDuration, defaultWorkDir, type WorkerOptions } from "./worker.js";
export { runTask, ProviderRateLimited, type TaskResult, type TaskProgress } from "./runTask.js";
export { watchLifeline, LIFELINE_ENV } from "./lifeline.js";
