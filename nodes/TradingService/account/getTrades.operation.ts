import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { LIMITS } from '../constants';
import {
	accountOption,
	optionsCollection,
	parallelRequestsOption,
	returnAllAndLimit,
} from '../descriptions/common';
import { pickerField, type NodeVersion } from '../descriptions/pickers';
import { checkTradesRange, TradesWalk, type TradesQuery } from '../helpers/trades';
import { limitParameter, returnAllParameter, timestampMs } from '../helpers/validation';
import { optionalSymbol, type RunContext } from '../run/runContext';
import { ACCOUNT_ENDPOINTS } from './endpoints';

const properties = (version: NodeVersion): INodeProperties[] => [
	pickerField(version, 'symbols', {
		displayName: 'Symbol',
		name: 'symbol',
		type: 'string',
		default: '',
		placeholder: 'e.g. BTCUSDT',
		description: 'Only fills of this trading pair. Leave empty for every trading pair.',
	}),
	{
		displayName: 'Start',
		name: 'startTime',
		type: 'dateTime',
		default: '={{ $now.minus({ hours: 24 }).toISO() }}',
		description: 'Earliest fill time (inclusive). The exchange keeps fills for 30 days.',
	},
	{
		displayName: 'End',
		name: 'endTime',
		type: 'dateTime',
		default: '={{ $now.toISO() }}',
		description: 'Latest fill time (inclusive)',
	},
	...returnAllAndLimit(LIMITS.accountTradesPageSize),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['account'], operation: ['getTrades'] } }, [
		...properties(version),
		...(version < 2
			? []
			: [
					optionsCollection([
						...parallelRequestsOption(version, 'item'),
						...accountOption(version, 'whose fills to list'),
					]),
				]),
	]);

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const node = run.node;
	const query: TradesQuery = {
		symbol: optionalSymbol(run, itemIndex),
		startTime: timestampMs(node, 'Start', run.parameter('startTime', itemIndex), itemIndex),
		endTime: timestampMs(node, 'End', run.parameter('endTime', itemIndex), itemIndex),
	};
	checkTradesRange(node, query, Date.now(), itemIndex);
	const returnAll = returnAllParameter(run, itemIndex);
	// A fill carries no account: the item says whose it is, the account the request named.
	const { accountId } = await run.account(itemIndex);
	query.accountId = accountId;
	const withAccount = (trades: IDataObject[]) => trades.map((trade) => ({ ...trade, accountId }));
	if (returnAll) {
		const walk = new TradesWalk(node, query, itemIndex);
		await run.client.requestAllPages(ACCOUNT_ENDPOINTS.trades, walk);
		return withAccount(walk.trades);
	}
	const limit = limitParameter(run, itemIndex, LIMITS.accountTradesPageSize);
	const qs: IDataObject = { startTime: query.startTime, endTime: query.endTime, limit, accountId };
	if (query.symbol !== undefined) qs.symbol = query.symbol;
	return withAccount(
		(await run.client.request(ACCOUNT_ENDPOINTS.trades, { qs, itemIndex })) as IDataObject[],
	);
}
