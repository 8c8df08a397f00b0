import {
	NodeOperationError,
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
} from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import type { NodeVersion } from '../descriptions/pickers';
import { optionalSymbol, type RunContext } from '../run/runContext';
import { MARKET_ENDPOINTS } from './endpoints';
import { decimalText, optionalSymbolField, readSymbolEntries } from './marketReads';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['market'], operation: ['getPrice'] } }, [
		optionalSymbolField(version, 'the latest price'),
		...parallelRequestsOnly(version),
	]);

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const symbol = optionalSymbol(run, itemIndex);
	const found = await readSymbolEntries(run, MARKET_ENDPOINTS.tickerPrice, { symbol }, itemIndex);
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
