import type { INode } from 'n8n-workflow';

import { FLOW_TYPES } from '../helpers/flowTypes';
import type { HistoryRecord } from '../helpers/historyPage';
import { inputError } from '../helpers/validation';

export type Direction = 'both' | 'incoming' | 'outgoing';

/** Events whose records can be credits or debits, so Direction means something. */
export const EVENTS_WITH_DIRECTION: number[] = FLOW_TYPES.filter(
	(flowType) => flowType.hasDirection,
).map((flowType) => flowType.value);

export interface RecordFilter {
	direction: Direction;
	/** Exact, case-sensitive match on the record's `coin`. */
	coin?: string;
	/** Exact, case-sensitive match on the record's `symbol`; records without one never match. */
	symbol?: string;
}

/**
 * A filter value exactly as the user typed it. Empty means no filter. Leading or trailing spaces
 * are refused rather than trimmed: the match is exact, so such a value could never match.
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

/** 1 for a credit (positive change), -1 for a debit (negative), 0 for zero or no change. */
function changeSign(change: unknown): -1 | 0 | 1 {
	const text = typeof change === 'number' ? String(change) : change;
	if (typeof text !== 'string' || !/[1-9]/.test(text)) return 0;
	return text.trim().startsWith('-') ? -1 : 1;
}

export function matchesFilter(record: HistoryRecord, filter: RecordFilter): boolean {
	if (filter.direction === 'incoming' && changeSign(record.change) !== 1) return false;
	if (filter.direction === 'outgoing' && changeSign(record.change) !== -1) return false;
	if (filter.coin !== undefined && record.coin !== filter.coin) return false;
	if (filter.symbol !== undefined && record.symbol !== filter.symbol) return false;
	return true;
}

export function describeFilter(filter: RecordFilter): string {
	const parts: string[] = [];
	if (filter.direction !== 'both') parts.push(`Direction ${filter.direction}`);
	if (filter.coin !== undefined) parts.push(`Coin "${filter.coin}"`);
	if (filter.symbol !== undefined) parts.push(`Symbol "${filter.symbol}"`);
	return parts.join(', ');
}
