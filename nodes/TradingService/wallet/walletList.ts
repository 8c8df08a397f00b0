import {
	NodeOperationError,
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
} from 'n8n-workflow';

import { DAY_MS } from '../constants';
import { parallelRequestsOnly, returnAllAndLimit } from '../descriptions/common';
import { pickerField } from '../descriptions/pickers';
import {
	coin as coinValue,
	inputError,
	limitParameter,
	returnAllParameter,
	timestampMs,
} from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import type { Endpoint } from '../transport';
import {
	TimeWalk,
	WALLET_PAGE_SIZE,
	newestFirst,
	withStatusText,
	type TimeRange,
} from './walletPages';

/** What differs between Get Deposits and Get Withdrawals. */
export interface WalletList {
	operation: 'getDeposits' | 'getWithdrawals';
	/** "deposit" / "withdrawal", in descriptions and errors. */
	noun: string;
	endpoint: Endpoint;
	idField: string;
	statuses: ReadonlyArray<{ code: number; name: string; text: string }>;
	/** The widest range one request may ask for (withdrawals: 7 days); none: any. */
	maxRangeMs?: number;
}

export const WITHDRAWAL_RANGE_MS = 7 * DAY_MS;

export function listDescription(list: WalletList): INodeProperties[] {
	const properties: INodeProperties[] = [
		{
			displayName: 'Start',
			name: 'startTime',
			type: 'dateTime',
			default: '={{ $now.minus({ days: 7 }).toISO() }}',
			description: `Earliest ${list.noun} time (inclusive): when the ${list.noun} order was created`,
		},
		{
			displayName: 'End',
			name: 'endTime',
			type: 'dateTime',
			default: '={{ $now.toISO() }}',
			description: `Latest ${list.noun} time (inclusive)`,
		},
		pickerField(2, 'coins', {
			displayName: 'Coin',
			name: 'coin',
			type: 'string',
			default: '',
			placeholder: 'e.g. USDT',
			description: `Only ${list.noun}s of this coin (matched exactly against each record's coin). Leave empty for every coin.`,
		}),
		{
			displayName: 'Status',
			name: 'status',
			type: 'multiOptions',
			default: [],
			options: list.statuses.map((status) => ({
				name: status.name,
				value: status.code,
				description: `The exchange's status ${status.code}`,
			})),
			description: `Only ${list.noun}s in one of these statuses. Leave empty for every status.`,
		},
		...returnAllAndLimit(WALLET_PAGE_SIZE),
		...parallelRequestsOnly(2),
	];
	return updateDisplayOptions(
		{ show: { resource: ['wallet'], operation: [list.operation] } },
		properties,
	);
}

/** The status codes chosen, each one the table lists. */
function statusesOf(run: RunContext, list: WalletList, itemIndex: number): number[] {
	const value = run.parameter('status', itemIndex, []);
	const chosen = Array.isArray(value) ? value : [value];
	return chosen.map((code) => {
		const known = list.statuses.find((status) => status.code === Number(code));
		if (known === undefined) {
			throw inputError(
				run.node,
				'Status',
				`${JSON.stringify(code)} is not a ${list.noun} status`,
				`Use the exchange's codes: ${list.statuses.map((s) => `${s.code} (${s.name})`).join(', ')}.`,
				itemIndex,
			);
		}
		return known.code;
	});
}

/**
 * [start, end] cut into ranges at most `maxMs` apart as sent, newest first: TimeWalk may send a
 * range one millisecond wider on each side.
 */
function rangesOf(range: TimeRange, maxMs: number | undefined): TimeRange[] {
	if (maxMs === undefined) return [range];
	const span = maxMs - 2;
	const ranges: TimeRange[] = [];
	for (let end = range.endTime; end >= range.startTime; end -= span + 1)
		ranges.push({ startTime: Math.max(range.startTime, end - span), endTime: end });
	return ranges;
}

/** The records of the range that pass Coin and Status, newest first, each with its status in words. */
export async function executeList(
	run: RunContext,
	list: WalletList,
	itemIndex: number,
): Promise<IDataObject[]> {
	const node = run.node;
	const range: TimeRange = {
		startTime: timestampMs(node, 'Start', run.parameter('startTime', itemIndex), itemIndex),
		endTime: timestampMs(node, 'End', run.parameter('endTime', itemIndex), itemIndex),
	};
	if (range.endTime < range.startTime) {
		throw new NodeOperationError(node, 'End: is before Start', {
			description: 'Pick an End at or after the Start.',
			itemIndex,
		});
	}
	const typed = run.parameter('coin', itemIndex, '');
	const coin =
		typed === '' || typed === undefined ? undefined : coinValue(node, 'Coin', typed, itemIndex);
	const statuses = statusesOf(run, list, itemIndex);
	const wanted = returnAllParameter(run, itemIndex)
		? undefined
		: limitParameter(run, itemIndex, WALLET_PAGE_SIZE);
	const keep = (record: IDataObject) =>
		(coin === undefined || record.coin === coin) &&
		(statuses.length === 0 || statuses.includes(Number(record.status)));
	const records: IDataObject[] = [];
	for (const part of rangesOf(range, list.maxRangeMs)) {
		const left = wanted === undefined ? undefined : wanted - records.length;
		const walk = new TimeWalk(node, part, list.idField, { keep, wanted: left, itemIndex });
		await run.client.requestAllPages(list.endpoint, walk);
		records.push(...walk.records);
		if (wanted !== undefined && records.length >= wanted) break;
	}
	records.sort(newestFirst(list.idField));
	const kept = wanted === undefined ? records : records.slice(0, wanted);
	return kept.map((record) => withStatusText(record, list.statuses));
}
