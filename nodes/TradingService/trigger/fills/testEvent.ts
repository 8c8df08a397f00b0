import { NodeOperationError, type INode, type INodeExecutionData } from 'n8n-workflow';

import { LIMITS } from '../../constants';
import type { AccountFill } from '../../helpers/trades';
import { ENDPOINTS, type ServiceClient } from '../../transport';
import { MANUAL_MAX_PAGES } from '../testEvent';
import type { PollBounds } from '../settings';
import type { FillsSettings } from './settings';
import { FillsWalk } from './walk';

/** Whether a fill passes the Symbol filter (exact, case-sensitive). */
export function fillMatches(fill: AccountFill, settings: FillsSettings): boolean {
	return settings.symbol === undefined || fill.symbol === settings.symbol;
}

/**
 * "Fetch Test Event" for Order Filled: the newest fill (of the Symbol, when set), one request
 * unless the service ignored the symbol. Reads state, never writes it.
 */
export async function fetchTestFill(
	node: INode,
	client: ServiceClient,
	settings: FillsSettings,
	bounds: PollBounds,
): Promise<INodeExecutionData[]> {
	const walk = new FillsWalk(
		node,
		{
			symbol: settings.symbol,
			accountId: settings.accountId,
			startTime: bounds.start,
			endTime: bounds.end,
		},
		{ maxPages: MANUAL_MAX_PAGES, until: (fill) => fillMatches(fill, settings) },
	);
	await client.requestAllPages(ENDPOINTS.accountTrades, walk);
	if (walk.found !== undefined) return [{ json: walk.found }];
	const days = LIMITS.accountTradesRetentionDays;
	const ofSymbol = settings.symbol === undefined ? '' : ` of Symbol "${settings.symbol}"`;
	const newest = walk.fills[0];
	if (newest === undefined) {
		throw new NodeOperationError(
			node,
			`No fill of your orders${ofSymbol} in the last ${days} days`,
			{
				description: `The exchange keeps fills for ${days} days and lists none${ofSymbol}. The trigger will fire on the next fill once the workflow is active.`,
			},
		);
	}
	throw new NodeOperationError(node, `No fill matches Symbol "${String(settings.symbol)}"`, {
		description: `Symbol must equal the exchange's value exactly, including upper and lower case. For comparison, the newest fill the service listed has symbol "${String(newest.symbol ?? '')}".`,
	});
}
