import {
	NodeOperationError,
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
} from 'n8n-workflow';

import { optionalSymbolField } from './marketProperties';
import { decimalText } from './marketData';
import { ENDPOINTS } from '../transport';
import type { RunContext } from '../run/runContext';
import type { NodeVersion } from '../descriptions/pickers';
import { optionalSymbol } from '../run/symbolParameter';
import { readSymbolEntries } from './request';
import { parallelRequestsOnly } from '../descriptions/common';

const properties = (version: NodeVersion): INodeProperties[] => [
	optionalSymbolField(version, 'the latest price'),
];

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['market'], operation: ['getPrice'] } }, [
		...properties(version),
		...parallelRequestsOnly(version),
	]);

/**
 * GET /quote/v1/ticker/price: the latest trade price of one trading pair or of all, one item each,
 * `{ symbol, price }` with the price as a decimal string. Many items of one run share one
 * all-symbols request (request.ts readSymbolEntries).
 */
export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const symbol = optionalSymbol(run, itemIndex);
	const found = await readSymbolEntries(run, ENDPOINTS.tickerPrice, { symbol }, itemIndex);
	const prices = found.map((entry) => ({
		symbol: String(entry.s ?? ''),
		price: decimalText(entry.p),
	}));
	// The service refuses a symbol it does not know when asked for it alone; one missing from its
	// answer (an all-symbols answer shared by many items) is refused here, for this item only.
	if (symbol !== undefined && prices.length === 0) {
		throw new NodeOperationError(run.node, `Symbol: the service gave no price for ${symbol}`, {
			description:
				'Check the symbol: it must be a trading pair of the exchange, e.g. BTCUSDT. Leave Symbol empty to get the price of every trading pair.',
			itemIndex,
		});
	}
	return prices;
}
