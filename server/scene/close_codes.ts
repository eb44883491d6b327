/**
 * WebSocket close codes the scene's rules close a connection with (a transport in `server/ws/`
 * sends them).
 */

/** Close code: server going away (shutdown). */
export const CLOSE_GOING_AWAY = 1001;
/** Close code: policy violation (too many refused frames, no hello in time, over a budget). */
export const CLOSE_POLICY = 1008;
/** Close code: a frame over the size limit. */
export const CLOSE_TOO_BIG = 1009;
/** Close code: try again later (room full, too many scenes, reader too slow). */
export const CLOSE_TRY_LATER = 1013;
