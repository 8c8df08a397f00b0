import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../constants';
import {
	optionsCollection,
	parallelRequestsOption,
	returnAllAndLimit,
} from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { FLOW_TYPES } from '../helpers/flowTypes';
import { HistoryWalk } from '../helpers/history';
import { checkHistoryRange, type HistoryQuery, type HistoryRecord } from '../helpers/historyPage';
import {
	accountTypeValue,
	limitParameter,
	returnAllParameter,
	timestampMs,
} from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import { ACCOUNT_TYPE_OPTIONS } from './accountProperties';
import { ACCOUNT_ENDPOINTS } from './endpoints';

const properties = (version: NodeVersion): INodeProperties[] => [
	{
		displayName: 'Flow Type',
		name: 'flowType',
		type: 'options',
		required: true,
		default: 32,
		options: FLOW_TYPES.map((flowType) => ({
			name: flowType.displayName,
			value: flowType.value,
			description: `${flowType.specName} (${flowType.value}); kept for ${flowType.retentionDays} days`,
		})),
		description: 'Which kind of ledger record to list',
	},
	{
		displayName: 'Start',
		name: 'startTime',
		type: 'dateTime',
		default: '={{ $now.minus({ hours: 24 }).toISO() }}',
		description:
			'Earliest record time (inclusive). Trade and Fee records are kept for 7 days, the others for 30 days.',
	},
	{
		displayName: 'End',
		name: 'endTime',
		type: 'dateTime',
		default: '={{ $now.toISO() }}',
		description: 'Latest record time (inclusive)',
	},
	{
		displayName: 'Account Type',
		name: 'accountType',
		type: 'options',
		default: 0,
		options: ACCOUNT_TYPE_OPTIONS,
		description: 'Only records of this kind of account',
	},
	...returnAllAndLimit(LIMITS.historyPageSize),
	optionsCollection([
		...parallelRequestsOption(version, 'item'),
		{
			displayName: 'Add Parsed Fields',
			name: 'addParsedFields',
			type: 'boolean',
			default: false,
			description:
				'Whether to add changeNumber, totalNumber (JS numbers, may round) and createdIso next to the original string fields, which are kept as they are',
		},
		{
			displayName: 'Clamp Start to Retention Window',
			name: 'clampToRetention',
			type: 'boolean',
			default: false,
			description:
				'Whether to move a Start older than the service keeps records up to the oldest available time, instead of failing',
		},
	]),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions(
		{ show: { resource: ['account'], operation: ['getHistory'] } },
		properties(version),
	);

function withParsedFields(record: HistoryRecord): IDataObject {
	const created = Number(record.created);
	return {
		...record,
		changeNumber: record.change === undefined ? undefined : Number(record.change),
		totalNumber: record.total === undefined ? undefined : Number(record.total),
		createdIso: Number.isFinite(created) ? new Date(created).toISOString() : undefined,
	};
}

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const node = run.node;
	const flowType = run.parameter('flowType', itemIndex) as number;
	const accountType = accountTypeValue(node, run.parameter('accountType', itemIndex, 0), itemIndex);
	const returnAll = returnAllParameter(run, itemIndex);
	const options = run.options(
		itemIndex,
		(raw) => raw as { addParsedFields?: boolean; clampToRetention?: boolean },
	);
	const requested: HistoryQuery = {
		flowType,
		accountType: accountType === 0 ? undefined : accountType,
		startTime: timestampMs(node, 'Start', run.parameter('startTime', itemIndex), itemIndex),
		endTime: timestampMs(node, 'End', run.parameter('endTime', itemIndex), itemIndex),
	};
	const clamp = options.clampToRetention ?? false;
	const query = checkHistoryRange(node, requested, Date.now(), clamp, itemIndex);
	let walk: HistoryWalk;
	if (returnAll) {
		walk = new HistoryWalk(node, query, { overfull: 'fail' }, itemIndex);
	} else {
		const limit = limitParameter(run, itemIndex, LIMITS.historyPageSize);
		// The newest Limit records: one request of `limit` when the service lists newest first; an
		// earliest-first service may keep the earliest, and the walk then reads up to End.
		walk = new HistoryWalk(node, query, { overfull: 'skip', newest: limit }, itemIndex);
	}
	await run.client.requestAllPages(ACCOUNT_ENDPOINTS.history, walk);
	const records = walk.result.records;
	return options.addParsedFields ? records.map(withParsedFields) : records;
}
