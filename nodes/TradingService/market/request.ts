import type { IDataObject } from 'n8n-workflow';

import { MARKET_SITE } from '../constants';
import type { Endpoint } from '../transport';
import type { RunContext } from '../run/runContext';

/**
 * One market-data read. Every one names the MENA site: without `site` the service answers for
 * the HK site, whose symbols and rules differ (docs/api.md §4.15). The credential sends these with
 * the API key and no signature (their paths are constants.ts MARKET_DATA_PATHS).
 */
export async function readMarket(
	run: RunContext,
	endpoint: Endpoint,
	query: Record<string, string | number | undefined>,
	itemIndex: number,
): Promise<unknown> {
	const qs: IDataObject = {};
	for (const [key, value] of Object.entries(query)) if (value !== undefined) qs[key] = value;
	qs.site = MARKET_SITE;
	return await run.client.request(endpoint, { qs, itemIndex });
}

/** A list of the answer's entries that are objects (the endpoint's shape check has run). */
export function entries(answer: unknown): IDataObject[] {
	return Array.isArray(answer) ? (answer as IDataObject[]) : [];
}

/**
 * The entries of a read that answers one trading pair or, without `symbol`, every one (Get Price,
 * Get 24h Ticker): those of the item's symbol, or all of them when it has none.
 *
 * The service lets a key send only a few such reads a second, and the node paces its requests to
 * that, so one request per item would make a run of many items slow. The run's items therefore
 * share their requests: items whose query is the same share one request; and when the run has
 * more than one item and Symbol may differ from item to item (an expression), each item asks for
 * every symbol, so all of them share one all-symbols request (one per value of the other
 * parameters, e.g. Instrument Type), and each takes its own symbol's entries from it. A run of one
 * item sends its own query, as the lighter answer. An item whose symbol the answer lacks gets no
 * entry: the operation reports it, for that item only.
 */
export async function readSymbolEntries(
	run: RunContext,
	endpoint: Endpoint,
	query: { symbol: string | undefined } & Record<string, string | undefined>,
	itemIndex: number,
): Promise<IDataObject[]> {
	const { symbol } = query;
	const everySymbol =
		symbol !== undefined && run.varies('symbol') && run.functions.getInputData().length > 1;
	// `symbol` first, as it was always sent (its value undefined is left out).
	const sent = { ...query, symbol: everySymbol ? undefined : symbol };
	const key = `market ${endpoint.path} ${JSON.stringify(Object.entries(sent))}`;
	const answer = await run.shared(
		key,
		async () => await readMarket(run, endpoint, sent, itemIndex),
	);
	return entries(answer).filter((entry) => symbol === undefined || entry.s === symbol);
}
