import { NodeOperationError, type INode } from 'n8n-workflow';

import { LIMITS } from '../../constants';
import { FillsWalk, fillsOldestFirst, type AccountFill } from '../../helpers/trades';
import { ENDPOINTS } from '../../transport';
import { fillsQueryKey, type FillsSettings } from '../settings';
import type { EventSource, RangeRead } from './source';

/**
 * Order Filled's source: the account's trades (GET /api/v1/account/trades), newest first by trade
 * ID and paged by it (FillsWalk), so a read stopped by n8n's poll time budget goes on below the
 * smallest trade ID read (`belowId`) rather than below a time. A fill's `time` is kept where a
 * record's `created` is, its trade ID as the id.
 */
export function fillsSource(node: INode, settings: FillsSettings): EventSource<AccountFill> {
	return {
		query: fillsQueryKey(settings),
		pageSize: LIMITS.accountTradesPageSize,
		expiredCatchUp: 'of fills is older than the 30 days the exchange keeps fills',
		key: (fill) => ({ id: fill.id, created: fill.time }),
		oldestFirst: fillsOldestFirst,
		matches: (fill) => settings.symbol === undefined || fill.symbol === settings.symbol,
		async read(client, range, options) {
			const { startTime, endTime, belowId } = range;
			const walk = new FillsWalk(
				node,
				{ symbol: settings.symbol, accountId: settings.accountId, startTime, endTime },
				{
					deadline: options.deadline,
					// The list is newest first: its first page holds the newest fills.
					maxPages: options.newestPage === true ? 1 : options.maxPages,
					belowId,
					until: options.until,
				},
			);
			await client.requestAllPages(ENDPOINTS.accountTrades, walk);
			const stopped = walk.stopped && walk.below !== undefined;
			return {
				records: walk.fills,
				found: walk.found,
				resume: stopped ? { from: startTime, to: endTime, belowId: walk.below } : undefined,
			};
		},
		noTestEvent: (read) => noTestFillError(node, settings, read),
	};
}

/** Why Fetch Test Event found no fill: none in the 30 days, or none of the Symbol. */
function noTestFillError(
	node: INode,
	settings: FillsSettings,
	read: RangeRead<AccountFill>,
): NodeOperationError {
	const days = LIMITS.accountTradesRetentionDays;
	const ofSymbol = settings.symbol === undefined ? '' : ` of Symbol "${settings.symbol}"`;
	const newest = read.records[0];
	if (newest === undefined) {
		return new NodeOperationError(
			node,
			`No fill of your orders${ofSymbol} in the last ${days} days`,
			{
				description: `The exchange keeps fills for ${days} days and lists none${ofSymbol}. The trigger will fire on the next fill once the workflow is active.`,
			},
		);
	}
	return new NodeOperationError(node, `No fill matches Symbol "${String(settings.symbol)}"`, {
		description: `Symbol must equal the exchange's value exactly, including upper and lower case. For comparison, the newest fill the service listed has symbol "${String(newest.symbol ?? '')}".`,
	});
}
