/** Tool calls one agent run may make unless told otherwise (a TaskAgent is told, with each workspace task). */
export const DEFAULT_MAX_TOOL_CALLS = 40;
/** Model calls one agent run may make unless told otherwise (a TaskAgent is told, with each workspace task). */
export const DEFAULT_MAX_TURNS = 60;
