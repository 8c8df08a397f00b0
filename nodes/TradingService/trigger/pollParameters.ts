import type { IDataObject, INode, IPollFunctions } from 'n8n-workflow';

import { DAY_MS, LIMITS } from '../constants';
import { contractSymbol } from '../futures/contracts';
import { FLOW_TYPES, findFlowType, type FlowType } from '../helpers/flowTypes';
import { retentionStart, type HistoryQuery } from '../helpers/historyPage';
import { locatorValue } from '../helpers/validation';
import { accountTypeValue, inputError, integerInRange, oneOf } from '../helpers/validation';

/** The Event value of Order Filled: a string, never taken for a flow type (every other event's value). */
export const ORDER_FILLED = 'orderFilled';
/** The Event value of Futures Order Filled (version 2). */
export const FUTURES_ORDER_FILLED = 'futuresOrderFilled';
/** The Event value of Deposit Received (version 2; trigger/deposits.ts polls it). */
export const DEPOSIT_RECEIVED = 'depositReceived';

export const DEFAULT_LATE_WINDOW_MINUTES = 10;
export const MAX_LATE_WINDOW_MINUTES = 60;
/** The query's end bound is the local clock plus the largest receive window (docs/trigger.md, Decisions). */
export const END_MARGIN_MS = LIMITS.maxRecvWindowMs;
/** The query's start stays this far inside the retention window, for the same clock reason. */
export const RETENTION_MARGIN_MS = LIMITS.maxRecvWindowMs;

const DIRECTIONS = ['both', 'incoming', 'outgoing'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** Events whose records can be credits or debits, so Direction means something. */
export const EVENTS_WITH_DIRECTION: number[] = FLOW_TYPES.filter(
	(flowType) => flowType.hasDirection,
).map((flowType) => flowType.value);

/** Direction, Coin and Symbol; Coin and Symbol match exactly (case-sensitive). */
export interface RecordFilter {
	direction: Direction;
	coin?: string;
	/** Records without a symbol never match. */
	symbol?: string;
}

/** A history event's parameters, checked. */
export interface TriggerSettings {
	flowType: FlowType;
	accountType?: number;
	filter: RecordFilter;
	lateWindowMs: number;
}

/** Order Filled's parameters, checked (Account Type and Direction are hidden for it). */
export interface FillsSettings {
	/** Filters › Symbol: sent as `symbol`, and matched exactly on each fill. */
	symbol?: string;
	lateWindowMs: number;
	/** The key's own trading account, set by the poll; the same for a key, so not in the state's key. */
	accountId?: string;
}

/** Futures Order Filled's parameters: the fills of one contract, or of every contract listed. */
export interface FuturesFillsSettings {
	futures: true;
	/** The Contract; undefined: every contract exchange information lists. */
	contract?: string;
	lateWindowMs: number;
}

export type EventSettings = TriggerSettings | FillsSettings | FuturesFillsSettings;

export function isFuturesFills(settings: EventSettings): settings is FuturesFillsSettings {
	return 'futures' in settings;
}

export function isHistoryEvent(settings: EventSettings): settings is TriggerSettings {
	return 'flowType' in settings;
}

/** The widest range one poll may ask for. */
export interface PollBounds {
	start: number;
	end: number;
}

export function readEventSettings(context: IPollFunctions): EventSettings {
	const event = context.getNodeParameter('event');
	if (event === FUTURES_ORDER_FILLED) {
		const typed = locatorValue(context.getNodeParameter('contract', ''));
		const contract =
			typed === undefined || typed === null || typed === ''
				? undefined
				: contractSymbol(context.getNode(), 'Contract', typed);
		return { futures: true, contract, lateWindowMs: readLateWindowMs(context) };
	}
	return event === ORDER_FILLED ? readFillsSettings(context) : readSettings(context);
}

/** A history event's parameters; a bad one fails the poll before anything is sent. */
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
		? oneOf(node, 'Direction', context.getNodeParameter('direction', 'both'), DIRECTIONS)
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

/** Order Filled's parameters. A Coin filter is refused, not silently dropped: a fill has no single coin. */
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
 * A filter value exactly as the user typed it; empty is no filter. Leading or trailing spaces are
 * refused rather than trimmed: the match is exact, so such a value could never match.
 */
export function exactFilterValue(node: INode, field: string, value: unknown): string | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value !== 'string') {
		throw inputError(
			node,
			field,
			`${JSON.stringify(value)} is not text`,
			`Enter ${field} as text, e.g. USDT.`,
		);
	}
	if (value.trim() !== value) {
		throw inputError(
			node,
			field,
			`"${value}" starts or ends with spaces`,
			`The filter matches the service's value exactly, so it would never match. Remove the spaces.`,
		);
	}
	return value;
}

/**
 * The bounds of a poll that starts at `now`: the event's retention window up to the clock's
 * margin; for fills the trade list's 30 days (an older start is refused, -2028).
 */
export function pollBounds(settings: EventSettings, now: number): PollBounds {
	const oldest = isHistoryEvent(settings)
		? retentionStart(settings.flowType.value, now)
		: now - LIMITS.accountTradesRetentionDays * DAY_MS;
	return { start: oldest + RETENTION_MARGIN_MS, end: now + END_MARGIN_MS };
}

/** Order Filled's state key: per Symbol, as the Symbol is sent to the service. */
export function fillsQueryKey(settings: FillsSettings): string {
	return `event=${ORDER_FILLED};symbol=${JSON.stringify(settings.symbol ?? null)}`;
}

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
