import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { DAY_MS, LIMITS } from '../constants';
import { findFlowType, type FlowType } from '../helpers/flowTypes';
import { retentionStart, type HistoryQuery } from '../helpers/historyPage';
import { locatorValue } from '../helpers/locator';
import { accountTypeValue, inputError, integerInRange, oneOf } from '../helpers/validation';
import {
	EVENTS_WITH_DIRECTION,
	exactFilterValue,
	type Direction,
	type RecordFilter,
} from './filters';

/**
 * The Event value of Order Filled: fills of the key's orders (GET /api/v1/account/trades,
 * trigger/sources/fills.ts). A string, so it can never be taken for a flow type; every other event's value is
 * its flow type number.
 */
export const ORDER_FILLED = 'orderFilled';

export const DEFAULT_LATE_WINDOW_MINUTES = 10;
export const MAX_LATE_WINDOW_MINUTES = 60;
/**
 * The query's end bound is this machine's clock plus this margin. It is only a bound, never
 * stored: a record newer than it is read by the next poll, whose range starts from the watermark.
 * Signed requests are accepted only while the two clocks agree within the receive window (at most
 * 60 s), so local time + 60 s is never behind the service's clock.
 */
export const END_MARGIN_MS = LIMITS.maxRecvWindowMs;
/** The query's start stays this far inside the retention window, for the same clock reason. */
export const RETENTION_MARGIN_MS = LIMITS.maxRecvWindowMs;

/** The trigger's parameters for a history event, checked: what to read and which records to emit. */
export interface TriggerSettings {
	flowType: FlowType;
	accountType?: number;
	filter: RecordFilter;
	lateWindowMs: number;
}

/** Order Filled's parameters, checked. Account Type and Direction do not apply (hidden for it). */
export interface FillsSettings {
	/** Filters › Symbol: sent as `symbol`, and matched exactly (case-sensitive) on each fill. */
	symbol?: string;
	lateWindowMs: number;
	/**
	 * The trading account whose fills start the workflow: the API key's own (helpers/accountScope.ts),
	 * set by the poll before anything is read. Not part of the state's key: it is the same account
	 * for a key, and a master key's sub accounts' fills never start the workflow.
	 */
	accountId?: string;
}

/** Either event's settings; the source they read (trigger/sources/) follows from them. */
export type EventSettings = TriggerSettings | FillsSettings;

/** Whether the settings are a history event's (every event but Order Filled). */
export function isHistoryEvent(settings: EventSettings): settings is TriggerSettings {
	return 'flowType' in settings;
}

/** The widest range one poll may ask for. */
export interface PollBounds {
	/** Oldest time the service still keeps, with a margin. */
	start: number;
	/** Newest time to ask for. */
	end: number;
}

/** Reads and checks the parameters of the event the trigger is set to. */
export function readEventSettings(context: IPollFunctions): EventSettings {
	const isOrderFilled = context.getNodeParameter('event') === ORDER_FILLED;
	return isOrderFilled ? readFillsSettings(context) : readSettings(context);
}

/** Reads and checks a history event's parameters; a bad one fails the poll before anything is sent. */
export function readSettings(context: IPollFunctions): TriggerSettings {
	const node = context.getNode();
	const event = context.getNodeParameter('event') as unknown;
	const flowType = findFlowType(Number(event));
	if (flowType === undefined) {
		throw inputError(
			node,
			'Event',
			`${JSON.stringify(event)} is not an event this trigger knows`,
			'Pick an event from the list.',
		);
	}
	const accountType = accountTypeValue(node, context.getNodeParameter('accountType', 0));
	const direction: Direction = EVENTS_WITH_DIRECTION.includes(flowType.value)
		? oneOf(node, 'Direction', context.getNodeParameter('direction', 'both'), [
				'both',
				'incoming',
				'outgoing',
			] as const)
		: 'both';
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	return {
		flowType,
		accountType: accountType === 0 ? undefined : accountType,
		filter: {
			direction,
			coin: exactFilterValue(node, 'Coin', locatorValue(filters.coin)),
			symbol: exactFilterValue(node, 'Symbol', filters.symbol),
		},
		lateWindowMs: readLateWindowMs(context),
	};
}

/** Options › Late Records Window, checked, in ms. */
export function readLateWindowMs(context: IPollFunctions): number {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const lateWindowMinutes = integerInRange(
		context.getNode(),
		'Late Records Window (Minutes)',
		options.lateWindowMinutes ?? DEFAULT_LATE_WINDOW_MINUTES,
		0,
		MAX_LATE_WINDOW_MINUTES,
	);
	return lateWindowMinutes * 60 * 1000;
}

/**
 * Reads and checks Order Filled's parameters. A Coin filter is refused, not ignored: a fill has no
 * single coin (it moves the base and the quote coin, and its fee may be in either), so a Coin the
 * user set would otherwise be silently dropped.
 */
export function readFillsSettings(context: IPollFunctions): FillsSettings {
	const node = context.getNode();
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const coin = locatorValue(filters.coin);
	if (coin !== undefined && coin !== null && coin !== '') {
		throw inputError(
			node,
			'Filters › Coin',
			'does not apply to Order Filled: a fill has no single coin',
			'Remove the Coin filter. To get the fills of one trading pair only, set Filters › Symbol instead, e.g. BTCUSDT.',
		);
	}
	return {
		symbol: exactFilterValue(node, 'Symbol', locatorValue(filters.symbol)),
		lateWindowMs: readLateWindowMs(context),
	};
}

/**
 * The bounds of a poll that starts at `now`: the event's retention window up to the clock's margin.
 * Fills: the trade list's 30 days (a start older than that by the exchange's clock is refused,
 * -2028).
 */
export function pollBounds(settings: EventSettings, now: number): PollBounds {
	const oldest = isHistoryEvent(settings)
		? retentionStart(settings.flowType.value, now)
		: now - LIMITS.accountTradesRetentionDays * DAY_MS;
	return { start: oldest + RETENTION_MARGIN_MS, end: now + END_MARGIN_MS };
}

/**
 * The state's query key of Order Filled: distinct from every flow type's, and per Symbol, as the
 * Symbol is sent to the service: changing Event or Symbol starts over like a first activation.
 */
export function fillsQueryKey(settings: FillsSettings): string {
	return `event=${ORDER_FILLED};symbol=${JSON.stringify(settings.symbol ?? null)}`;
}

/** The history query of the settings' event and account type over `startTime`..`endTime`. */
export function historyQuery(
	settings: TriggerSettings,
	startTime: number,
	endTime: number,
): HistoryQuery {
	return {
		flowType: settings.flowType.value,
		accountType: settings.accountType,
		startTime,
		endTime,
	};
}
