import type { IDataObject, INode } from 'n8n-workflow';

import { ERROR_CODES, MARKET_SITE } from '../constants';
import { inputError } from '../helpers/validation';
import { ENDPOINTS, isServiceRejection, type ServiceClient } from '../transport';

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

/** The codes of a refused symbol: the family's "Instrument not found" and "Invalid Symbols!". */
const UNKNOWN_SYMBOL_CODES = [ERROR_CODES.instrumentNotFound, ERROR_CODES.invalidSymbols];

/**
 * The service's refusal of a well-formed contract it does not know (`0201`, `-100010`), worded for
 * futures: the transport's text for these codes is the spot pair's ("e.g. BTCUSDT"), which the
 * contract check refuses. `field` is the parameter's label (Symbol, Contract), `symbol` gives the
 * contract sent (read only for such a refusal), `after` what the node did or did not do. Any other
 * error is returned as it is. The error keeps its kind, code and item (only its texts change).
 */
export function unknownContractError(
	error: unknown,
	field: string,
	symbol: () => unknown,
	after = 'Nothing was executed.',
): unknown {
	if (!UNKNOWN_SYMBOL_CODES.some((code) => isServiceRejection(error, code))) return error;
	const { rejection } = error as { rejection: { code: string; msg: string } };
	const sent = symbol();
	const named = typeof sent === 'string' && CONTRACT_SYMBOL.test(sent) ? ` ${sent}` : '';
	const refused = error as { message: string; description?: string | null };
	refused.message = `${field}: the exchange does not list the futures contract${named}`;
	refused.description = `The service said: "${rejection.msg}" (code ${rejection.code}). Pick the contract from the ${field} list, which shows every contract the exchange lists (or run Futures › Get Funding Rate with Symbol empty to see them all), and use its name as listed, e.g. BTCUSDT-PERPETUAL. ${after}`;
	return error;
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
