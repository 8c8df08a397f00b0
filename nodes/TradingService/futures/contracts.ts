import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

import { ERROR_CODES, MARKET_SITE } from '../constants';
import { pickerField, type NodeVersion } from '../descriptions/pickers';
import { inputError, limitParameter, returnAllParameter } from '../helpers/validation';
import { ORDER_ENDPOINTS } from '../orders/endpoints';
import type { PerItemOperation } from '../run/node.type';
import type { RunContext } from '../run/runContext';
import { isServiceRejection, type ServiceClient } from '../transport';

const CONTRACT_SYMBOL = /^[A-Z0-9]+-PERPETUAL$/;

/** The most Limit takes on every futures list (more: turn on Return All). */
export const FUTURES_MAX_LIMIT = 5000;

/** A contract symbol as the user gave it: a spot pair or lower case is refused with the fix. */
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

const UNKNOWN_SYMBOL_CODES = [ERROR_CODES.instrumentNotFound, ERROR_CODES.invalidSymbols];

/**
 * The refusal of a contract the service does not know, reworded for futures: the transport's text
 * suggests a spot pair ("e.g. BTCUSDT"), which the contract check refuses. Other errors unchanged.
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

/** Exchange information's contracts (MENA site), in its order. */
export async function readContracts(
	client: ServiceClient,
	itemIndex?: number,
): Promise<Contract[]> {
	const answer = (await client.request(ORDER_ENDPOINTS.exchangeInfo, {
		qs: { site: MARKET_SITE },
		itemIndex,
	})) as IDataObject;
	const contracts = Array.isArray(answer.contracts) ? (answer.contracts as IDataObject[]) : [];
	return contracts.filter(
		(entry): entry is Contract =>
			typeof entry.symbol === 'string' && CONTRACT_SYMBOL.test(entry.symbol),
	);
}

/** The Symbol field: a contract picker. Without `emptyMeans` it is required. */
export function contractField(
	version: NodeVersion,
	what: string,
	emptyMeans?: string,
): INodeProperties {
	return pickerField(version, 'contracts', {
		displayName: 'Symbol',
		name: 'symbol',
		type: 'string',
		default: '',
		required: emptyMeans === undefined,
		placeholder: 'e.g. BTCUSDT-PERPETUAL',
		description:
			emptyMeans === undefined
				? `The futures contract ${what}, e.g. BTCUSDT-PERPETUAL`
				: `The futures contract ${what}, e.g. BTCUSDT-PERPETUAL. Leave empty for ${emptyMeans}.`,
	});
}

export function requiredContract(run: RunContext, itemIndex: number): string {
	return contractSymbol(run.node, 'Symbol', run.parameter('symbol', itemIndex, ''), itemIndex);
}

export function optionalContract(run: RunContext, itemIndex: number): string | undefined {
	const value = run.parameter('symbol', itemIndex, '');
	if (value === '' || value === undefined || value === null) return undefined;
	return contractSymbol(run.node, 'Symbol', value, itemIndex);
}

export function wantedEntries(run: RunContext, itemIndex: number): number | undefined {
	if (returnAllParameter(run, itemIndex)) return undefined;
	return limitParameter(run, itemIndex, FUTURES_MAX_LIMIT);
}

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

/** One after the other: each request waits for its turn in the key's query rate anyway. */
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

/** A futures read as the router runs it: an unknown contract reported with the futures hint. */
export function futuresRead(execute: PerItemOperation['execute']): PerItemOperation {
	return {
		mode: 'perItem',
		writes: false,
		execute: async (run, itemIndex) => {
			try {
				return await execute(run, itemIndex);
			} catch (error) {
				throw unknownContractError(error, 'Symbol', () => run.parameter('symbol', itemIndex, ''));
			}
		},
	};
}
