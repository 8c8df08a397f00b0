import {
	NodeOperationError,
	updateDisplayOptions,
	type IDataObject,
	type INodeProperties,
} from 'n8n-workflow';

import { parallelRequestsOnly } from '../descriptions/common';
import { pickerField, type NodeVersion } from '../descriptions/pickers';
import { readSymbolRules, symbolRulesItem } from '../orders/symbolRules';
import { optionalSymbol, type RunContext } from '../run/runContext';

export const description = (version: NodeVersion): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: ['market'], operation: ['getSymbolRules'] } }, [
		pickerField(version, 'symbols', {
			displayName: 'Symbol',
			name: 'symbol',
			type: 'string',
			default: '',
			placeholder: 'e.g. BTCUSDT',
			description:
				'Trading pair whose rules to get, in upper case without separators. Leave empty to get the rules of every trading pair.',
		}),
		...parallelRequestsOnly(version),
	]);

export async function execute(run: RunContext, itemIndex: number): Promise<IDataObject[]> {
	const wanted = optionalSymbol(run, itemIndex);
	// Read afresh once per run, whatever the number of items: one answer holds every pair. This
	// also refreshes the rules Create and Create Many check orders against.
	const rules = await run.shared('symbolRules', () =>
		readSymbolRules(run.client, itemIndex, { fresh: true }),
	);
	if (wanted === undefined) return [...rules.values()].map(symbolRulesItem);
	const found = rules.get(wanted);
	if (found === undefined) {
		throw new NodeOperationError(run.node, `Symbol: the service has no trading pair ${wanted}`, {
			description:
				'Check the symbol: it must be a trading pair of the MENA site, in upper case without separators (e.g. BTCUSDT). Leave Symbol empty to list every trading pair.',
			itemIndex,
		});
	}
	return [symbolRulesItem(found)];
}
