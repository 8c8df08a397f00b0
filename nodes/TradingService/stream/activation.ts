import type { INode, ITriggerFunctions } from 'n8n-workflow';

import { USER_STREAM } from '../constants';
import type { AccountScope } from '../helpers/accountScope';
import type { ServiceClient } from '../transport';
import type { StreamSettings } from './settings';
import type { StreamState } from './state';

/**
 * The session's timings: the exchange's (constants.ts) in n8n. Tests shorten them to watch a
 * heartbeat fail or an outage be reported within seconds; nothing else changes them.
 */
export const STREAM_TIMINGS = {
	pingEveryMs: USER_STREAM.pingEveryMs as number,
	silenceLimitMs: USER_STREAM.silenceLimitMs as number,
	keepAliveEveryMs: USER_STREAM.keepAliveEveryMs as number,
	firstBackoffMs: USER_STREAM.firstBackoffMs as number,
	maxBackoffMs: USER_STREAM.maxBackoffMs as number,
	/** What the Report Outage After option counts in. */
	minuteMs: 60_000,
};

export interface SessionClock {
	now: () => number;
	random: () => number;
}

/** What every part of one activation of the real-time trigger works with. */
export interface Activation {
	context: ITriggerFunctions;
	node: INode;
	client: ServiceClient;
	settings: StreamSettings;
	clock: SessionClock;
	/** A manual run keeps no state and emits one event. */
	manual: boolean;
	/** What is kept in static data; replaced once, by the stored state, at activation. */
	state: StreamState;
	/** The trading account whose events start the workflow; resolved at activation. */
	account?: AccountScope;
	/** The n8n log, each line naming the trigger. */
	log: Record<'info' | 'warn' | 'error', (message: string) => void>;
}
