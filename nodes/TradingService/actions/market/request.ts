import type { IDataObject } from 'n8n-workflow';

import { MARKET_SITE } from '../../constants';
import type { Endpoint } from '../../transport';
import type { RunContext } from '../runContext';

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
