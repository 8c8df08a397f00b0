import type { IDataObject, INode } from 'n8n-workflow';

import { MARKET_SITE } from '../constants';
import { inputError } from '../helpers/validation';
import { ENDPOINTS, type ServiceClient } from '../transport';

/** A futures contract's symbol: upper-case letters and digits, then `-PERPETUAL`. */
export const CONTRACT_SYMBOL = /^[A-Z0-9]+-PERPETUAL$/;

/**
 * A contract symbol as the user gave it, checked before any request. A spot pair (BTCUSDT) or a
 * lower-case name is refused with the fix, as the exchange would answer it only with an error.
 */
export function contractSymbol(
	node: INode,
	field: string,
	value: unknown,
	itemIndex?: number,
): string {
	if (typeof value === 'string' && CONTRACT_SYMBOL.test(value)) return value;
	const shown =
		value === '' || value === undefined || value === null ? 'an empty value' : `"${String(value)}"`;
	const spotPair = typeof value === 'string' && /^[A-Z0-9]+$/.test(value);
	throw inputError(
		node,
		field,
		`${shown} is not a futures contract`,
		spotPair
			? `Contracts end in -PERPETUAL: for the ${value} pair, pick ${value}-PERPETUAL from the list if the exchange lists it.`
			: 'Pick a contract from the list, or enter it in upper case, e.g. BTCUSDT-PERPETUAL.',
		itemIndex,
	);
}

/** A contract as exchange information lists it (`contracts`); the fields the node reads. */
export interface Contract extends IDataObject {
	symbol: string;
	status: string;
	baseAsset: string;
	quoteAsset: string;
}

/**
 * The exchange's futures contracts (exchange information's `contracts`, MENA site), in the order
 * the service lists them. Entries without a contract symbol are left out.
 */
export async function readContracts(
	client: ServiceClient,
	itemIndex?: number,
): Promise<Contract[]> {
	const answer = (await client.request(ENDPOINTS.exchangeInfo, {
		qs: { site: MARKET_SITE },
		itemIndex,
	})) as IDataObject;
	const contracts = Array.isArray(answer.contracts) ? (answer.contracts as IDataObject[]) : [];
	return contracts.filter(
		(entry): entry is Contract =>
			typeof entry.symbol === 'string' && CONTRACT_SYMBOL.test(entry.symbol),
	);
}
