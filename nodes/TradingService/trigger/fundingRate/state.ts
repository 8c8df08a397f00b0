import type { IDataObject } from 'n8n-workflow';

/**
 * What Funding Rate Crosses a Threshold keeps in the workflow's static data between polls:
 *
 * - `query`: the contract, direction and threshold it belongs to (settings.ts, crossingQueryKey);
 *   another one starts over like a first activation.
 * - `beyond`: whether the rate was beyond the threshold (above it for Rises Above, below it for
 *   Falls Below) at the last poll. An item is emitted only when it goes from false to true.
 * - `rate`, `nextFundingTime`: the rate read at the last poll and the funding time it was for (the
 *   service's text), for the item's `previousRate` and for the catch-up after a restart (crossing.ts).
 */
export interface CrossingState {
	version: number;
	query: string;
	beyond: boolean;
	rate: string;
	nextFundingTime: string;
}

export const CROSSING_STATE_VERSION = 1;

/** The stored state for this query, or undefined when there is none (or it is another query's). */
export function readCrossingState(
	staticData: IDataObject,
	query: string,
): CrossingState | undefined {
	const { version, beyond, rate, nextFundingTime } = staticData;
	if (version !== CROSSING_STATE_VERSION || staticData.query !== query) return undefined;
	if (typeof beyond !== 'boolean' || typeof rate !== 'string') return undefined;
	if (typeof nextFundingTime !== 'string' || !/^\d{1,16}$/.test(nextFundingTime)) return undefined;
	return { version, query, beyond, rate, nextFundingTime };
}

/**
 * Replaces the static data with the state, and leaves it untouched when nothing changed (n8n then
 * has nothing to save). Called only once every request of the poll has succeeded.
 */
export function writeCrossingState(staticData: IDataObject, state: CrossingState): void {
	if (sameState(staticData, state)) return;
	for (const key of Object.keys(staticData)) delete staticData[key];
	Object.assign(staticData, { ...state });
}

function sameState(staticData: IDataObject, state: CrossingState): boolean {
	const keys = Object.keys(staticData);
	return (
		keys.length === Object.keys(state).length &&
		keys.every((key) => staticData[key] === state[key as keyof CrossingState])
	);
}

/**
 * The static data objects this process has completed a poll with. n8n keeps a workflow's static
 * data in memory between polls and saves it to its database only when a poll emits (and at
 * activation), so a state a poll changed without emitting is lost at a restart: the state n8n
 * loads may be older than the last poll. A static data object not in this set has just been
 * loaded (n8n started, the workflow was activated or updated): its first poll catches up.
 */
const polledStates = new WeakSet<IDataObject>();

/** Whether this process has not yet completed a poll with this static data (it may be behind). */
export function justLoaded(staticData: IDataObject): boolean {
	return !polledStates.has(staticData);
}

/** Marks the static data as polled by this process: it holds the last poll's state from now on. */
export function markPolled(staticData: IDataObject): void {
	polledStates.add(staticData);
}
