import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { FUTURES_ENDPOINTS } from '../futures/endpoints';
import { readContracts } from '../futures/contracts';
import { IdWalk, TRADES_PAGING } from '../futures/idPages';
import { contractAccountOf } from '../helpers/accountScope';
import { compareTradeIds } from '../helpers/trades';
import type { ServiceClient } from '../transport';
import { FUTURES_ORDER_FILLED, type FuturesFillsSettings } from './pollParameters';

/**
 * Futures Order Filled (docs/trigger.md): the fills of the key's own futures account,
 * GET /api/v2/futures/userTrades, one list per contract (the list needs a symbol), read by time and
 * paged back by trade ID. The poller (poll.ts, pollCatchUp.ts) keeps the watermark and the seen
 * trade IDs as for Order Filled: each fill is emitted once, oldest first.
 */

/** A futures fill; the fields the trigger reads. */
type FuturesFill = IDataObject & { tradeId: string; time: string };

const isFill = (entry: IDataObject): entry is FuturesFill =>
	typeof entry.tradeId === 'string' &&
	/^\d{1,20}$/.test(entry.tradeId) &&
	/^\d+$/.test(String(entry.time));

/** Oldest first: by time, then trade ID compared as a number, without losing digits. */
export const futuresFillsOldestFirst = (a: FuturesFill, b: FuturesFill): number =>
	Number(a.time) - Number(b.time) || compareTradeIds(a.tradeId, b.tradeId);

/**
 * The key must have one futures account of its own, by the real-time trigger's rule: a sub
 * account's key has none, and its fill list would stay empty forever, so the poll says so instead.
 */
export async function checkFuturesAccount(client: ServiceClient, node: INode): Promise<void> {
	if (contractAccountOf(await client.keyAccounts()) !== undefined) return;
	throw new NodeOperationError(node, 'This API key has no futures account of its own', {
		description:
			"Futures Order Filled follows the fills of the API key's own futures account (account type 3), and the exchange lists none for this key (a sub account's key has none), or several. Use the main account's API key.",
	});
}

interface Read {
	records: FuturesFill[];
	found?: FuturesFill;
}

/** Futures Order Filled's source (eventSources.ts `EventSource`). */
export function futuresFillsSource(node: INode, settings: FuturesFillsSettings) {
	return {
		query: `event=${FUTURES_ORDER_FILLED};contract=${JSON.stringify(settings.contract ?? null)}`,
		pageSize: TRADES_PAGING.pageSize,
		expiredCatchUp: 'of fills is older than the 30 days the exchange keeps fills',
		key: (fill: FuturesFill) => ({
			id: fill.tradeId,
			created: fill.time,
			list: String(fill.symbol),
		}),
		oldestFirst: futuresFillsOldestFirst,
		matches: () => true,
		/**
		 * Every fill of the range, each contract's pages in turn, newest first overall. A poll reads
		 * every page (one request per contract while each holds at most 1,000 new fills); the
		 * baseline and Fetch Test Event read each contract's newest page only.
		 */
		async read(
			client: ServiceClient,
			range: { startTime: number; endTime: number },
			options: { newestPage?: boolean; maxPages?: number; until?: (fill: FuturesFill) => boolean },
		): Promise<Read> {
			const contracts =
				settings.contract !== undefined
					? [settings.contract]
					: (await readContracts(client)).map((contract) => contract.symbol);
			const onePage = options.newestPage === true || options.until !== undefined;
			const records: FuturesFill[] = [];
			for (const symbol of contracts) {
				const query = { symbol, startTime: range.startTime, endTime: range.endTime };
				const wanted = onePage ? TRADES_PAGING.pageSize : undefined;
				const walk = new IdWalk(node, TRADES_PAGING, query, wanted);
				await client.requestAllPages(FUTURES_ENDPOINTS.userTrades, walk);
				for (const entry of walk.entries) if (isFill(entry)) records.push(entry);
			}
			records.sort((a, b) => futuresFillsOldestFirst(b, a));
			const until = options.until;
			return { records, found: until === undefined ? undefined : records.find(until) };
		},
		noTestEvent: (read: Read) =>
			new NodeOperationError(
				node,
				`No fill of your futures orders${settings.contract === undefined ? '' : ` of ${settings.contract}`} in the last 30 days`,
				{
					description: `The exchange keeps fills for 30 days and lists none${read.records.length > 0 ? ' that matches' : ''}. The trigger will fire on the next fill once the workflow is active.`,
				},
			),
	};
}
