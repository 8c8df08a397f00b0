import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';

import { contractSymbol } from '../futures/contracts';
import { locatorValue } from '../helpers/locator';
import { inputError, integerInRange } from '../helpers/validation';
import { STREAM_EVENT_KINDS, type StreamEventKind } from './events';

export const DEFAULT_OUTAGE_REPORT_MINUTES = 5;
export const MAX_OUTAGE_REPORT_MINUTES = 24 * 60;

/** The real-time trigger's parameters, checked before anything is sent. */
export interface StreamSettings {
	kinds: ReadonlySet<StreamEventKind>;
	/** Only order events of this symbol (exact). */
	symbol?: string;
	/** Only balance events of this coin (exact). */
	coin?: string;
	/** Only position events of this futures contract (exact). */
	contract?: string;
	/** After how many minutes without a connection the trigger reports the outage. */
	outageReportMinutes: number;
	/** The trading account chosen in the options; undefined: the API key's own. */
	account?: string;
}

const KNOWN_KINDS: readonly string[] = STREAM_EVENT_KINDS.map((kind) => kind.value);

/** An exact-match filter as typed: empty is no filter; spaces around it are refused, not trimmed. */
function exactValue(context: ITriggerFunctions, field: string, value: unknown): string | undefined {
	const refused = (problem: string, fix: string) =>
		inputError(context.getNode(), field, problem, fix);
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value !== 'string')
		throw refused(`${JSON.stringify(value)} is not text`, `Enter ${field} as text.`);
	if (value.trim() !== value)
		throw refused(
			`"${value}" starts or ends with spaces`,
			'The filter matches the exchange’s value exactly, so it would never match. Remove the spaces.',
		);
	return value;
}

/** The Contract filter: empty is every contract; else a contract symbol, checked. */
function contractValue(context: ITriggerFunctions, value: unknown): string | undefined {
	const typed = exactValue(context, 'Contract', value);
	return typed === undefined ? undefined : contractSymbol(context.getNode(), 'Contract', typed);
}

/** The Account option: empty is the key's own trading account; otherwise an account ID. */
function accountValue(context: ITriggerFunctions, value: unknown): string | undefined {
	const typed = exactValue(context, 'Account', value);
	if (typed === undefined) return undefined;
	if (!/^\d{1,20}$/.test(typed))
		throw inputError(
			context.getNode(),
			'Account',
			`"${typed}" is not an account ID`,
			'Pick the account from the list, or enter its ID (digits only), or leave it empty for the API key’s own trading account.',
		);
	return typed;
}

export function readStreamSettings(context: ITriggerFunctions): StreamSettings {
	const node = context.getNode();
	const events = context.getNodeParameter('events', []) as unknown;
	if (!Array.isArray(events) || events.length === 0)
		throw inputError(node, 'Events', 'no event is chosen', 'Pick at least one event.');
	for (const event of events) {
		if (typeof event !== 'string' || !KNOWN_KINDS.includes(event))
			throw inputError(
				node,
				'Events',
				`${JSON.stringify(event)} is not an event this trigger knows`,
				`Pick events from the list: ${STREAM_EVENT_KINDS.map((kind) => kind.name).join(', ')}.`,
			);
	}
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const outageMinutes = integerInRange(
		node,
		'Report Outage After (Minutes)',
		options.outageReportMinutes ?? DEFAULT_OUTAGE_REPORT_MINUTES,
		1,
		MAX_OUTAGE_REPORT_MINUTES,
	);
	return {
		kinds: new Set(events as StreamEventKind[]),
		symbol: exactValue(context, 'Symbol', locatorValue(filters.symbol)),
		coin: exactValue(context, 'Coin', locatorValue(filters.coin)),
		contract: contractValue(context, locatorValue(filters.contract)),
		outageReportMinutes: outageMinutes,
		account: accountValue(context, locatorValue(options.account)),
	};
}
