/**
 * The clock every wait, place and suspension is measured with: monotonic, so that a wall clock
 * stepped by NTP or by hand neither stalls a request (stepped back an hour: an hour's wait) nor
 * ends a suspension early (stepped forward a minute). The wall clock stays for what is sent to
 * the exchange (timestamps) and for the times shown to the user.
 */
export function monotonicNow(): number {
	return performance.now();
}

/** The wall-clock time (epoch milliseconds) of a moment on the monotonic clock, to show the user. */
export function wallTimeOf(monotonic: number): number {
	return Math.round(Date.now() + (monotonic - monotonicNow()));
}
