/**
 * The time the sandbox's rate windows run on: the process's start on the wall clock plus the
 * monotonic time since. Neither the sandbox's offset server clock nor a test that steps `Date.now`
 * (to step the n8n server's wall clock) moves it, as stepping a client's clock does not move the
 * exchange's windows.
 */
const origin = performance.timeOrigin;

export function realNow(): number {
	return origin + performance.now();
}
