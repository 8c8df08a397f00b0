import type { IDataObject } from 'n8n-workflow';

import { integerInRange, strictBoolean } from '../helpers/validation';
import type { RunContext } from '../run/runContext';
import { contractSymbol, readContracts } from './contracts';
import { FUTURES_MAX_LIMIT } from './futuresFields';

// The parameters the futures reads share, read and checked before any request.

/** The Symbol of a read that names one contract: required, checked (contracts.ts). */
export function requiredContract(run: RunContext, itemIndex: number): string {
	return contractSymbol(run.node, 'Symbol', run.parameter('symbol', itemIndex, ''), itemIndex);
}

/** The Symbol of a read of one contract or of all: empty (undefined) means every contract. */
export function optionalContract(run: RunContext, itemIndex: number): string | undefined {
	const value = run.parameter('symbol', itemIndex, '');
	if (value === '' || value === undefined || value === null) return undefined;
	return contractSymbol(run.node, 'Symbol', value, itemIndex);
}

/**
 * How many entries a list read wants: undefined with Return All (every entry), else Limit, a whole
 * number from 1 to FUTURES_MAX_LIMIT.
 */
export function wantedEntries(run: RunContext, itemIndex: number): number | undefined {
	const returnAll = strictBoolean(
		run.node,
		'Return All',
		run.parameter('returnAll', itemIndex, false),
		itemIndex,
	);
	if (returnAll) return undefined;
	return integerInRange(
		run.node,
		'Limit',
		run.parameter('limit', itemIndex, 50),
		1,
		FUTURES_MAX_LIMIT,
		itemIndex,
	);
}

/**
 * The contracts a read of "every contract" asks about: the one given, else every contract exchange
 * information lists (read once per run, shared by its items).
 */
export async function contractsToRead(
	run: RunContext,
	symbol: string | undefined,
	itemIndex: number,
): Promise<string[]> {
	if (symbol !== undefined) return [symbol];
	const contracts = await run.shared('futures contracts', () =>
		readContracts(run.client, itemIndex),
	);
	return contracts.map((contract) => contract.symbol);
}

/**
 * `read` once per contract, one contract after the other (every request waits for its turn in the
 * key's 5 query requests a second: transport/pacing.ts), the answers in the contracts' order.
 */
export async function forEachContract(
	contracts: string[],
	read: (symbol: string) => Promise<IDataObject[]>,
): Promise<IDataObject[]> {
	const all: IDataObject[] = [];
	for (const symbol of contracts) {
		for (const entry of await read(symbol)) all.push(entry);
	}
	return all;
}
