import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { readContracts } from '../futures/contracts';
import { readSymbolRules } from '../orders/symbolRules';
import { LIMITS, MARKET_SITE } from '../constants';
import { accountScope, inScope } from '../helpers/accountScope';
import { accountKind, accountKindName, type AccountKind } from '../helpers/accounts';
import { locatorValue } from '../helpers/locator';
import { DEFAULT_RETRY_POLICY, ENDPOINTS, ServiceClient } from '../transport';
import {
	lastPrices,
	orderEntryName,
	statusWords,
	symbolEntryName,
	tradableFirst,
} from './listEntries';

// The lists behind version 2's pickers. Each reads through the transport like any request of the
// node (the credential signs it, reads retry, the key's request rate applies), and filters by what
// the user typed in the picker's search box, case-insensitively.

/**
 * A picker's client: a list in the editor does not wait a minute for a rate limit to pass, it says
 * so at once.
 */
function pickerClient(functions: ILoadOptionsFunctions): ServiceClient {
	return new ServiceClient(functions, DEFAULT_RETRY_POLICY, () => 0);
}

function matches(filter: string | undefined, ...texts: unknown[]): boolean {
	if (filter === undefined || filter.trim() === '') return true;
	const wanted = filter.trim().toLowerCase();
	return texts.some((text) => typeof text === 'string' && text.toLowerCase().includes(wanted));
}

function byName(a: INodeListSearchItems, b: INodeListSearchItems): number {
	return a.name.localeCompare(b.name, 'en');
}

/**
 * The last price of every trading pair (GET /quote/v1/ticker/price, one public read for all of
 * them). The list works without: a failed read (e.g. a rate limit the picker does not wait for)
 * gives no prices.
 */
async function readLastPrices(client: ServiceClient): Promise<Map<string, string>> {
	try {
		return lastPrices(await client.request(ENDPOINTS.tickerPrice, { qs: { site: MARKET_SITE } }));
	} catch {
		return new Map();
	}
}

/**
 * The exchange's trading pairs (exchange info, MENA site), each with its last price; one that
 * cannot be traded now says so in words and is listed after those that can. Two reads: the rules
 * (kept 60 s per process, orders/symbolRules.ts) and the prices.
 */
export async function searchSymbols(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const client = pickerClient(this);
	const prices = readLastPrices(client);
	const rules = await readSymbolRules(client);
	const lastPrice = await prices;
	const entries = [...rules.values()]
		.filter((rule) => matches(filter, rule.symbol, rule.baseAsset, rule.quoteAsset))
		.map((rule) => ({
			name: symbolEntryName(rule, lastPrice.get(rule.symbol)),
			value: rule.symbol,
			status: rule.status,
		}));
	return { results: tradableFirst(entries).map(({ name, value }) => ({ name, value })) };
}

/**
 * The coins of the exchange's trading pairs (exchange info, MENA site): every base and quote coin,
 * so a coin the key can trade is always there.
 */
export async function searchCoins(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const rules = await readSymbolRules(pickerClient(this));
	const coins = new Set<string>();
	for (const rule of rules.values()) {
		if (rule.baseAsset !== '') coins.add(rule.baseAsset);
		if (rule.quoteAsset !== '') coins.add(rule.quoteAsset);
	}
	const results = [...coins]
		.filter((coin) => matches(filter, coin))
		.map((coin) => ({ name: coin, value: coin }))
		.sort(byName);
	return { results };
}

/** The kinds of account a transfer can move coins between (spec §2.3). */
const TRANSFER_KINDS: AccountKind[] = ['mainTrading', 'custody', 'subTrading'];

/** "Main Trading Account · 10001", or with its kind when the label does not say it. */
export function accountEntryName(account: IDataObject): string {
	const id = String(account.accountId);
	const kind = accountKindName(accountKind(account));
	const label = typeof account.accountLabel === 'string' ? account.accountLabel.trim() : '';
	if (label === '') return `${kind} account · ${id}`;
	return label.toLowerCase().includes(kind) ? `${label} · ${id}` : `${label} (${kind}) · ${id}`;
}

/**
 * The key's accounts a transfer can use (GET /api/v1/account/type): main trading, custody and sub
 * trading, each named with its kind and ID. Get Accounts lists the others (futures, fiat) too.
 */
export async function searchAccounts(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const accounts = (await pickerClient(this).request(ENDPOINTS.accountTypes, {})) as IDataObject[];
	const results = accounts
		.filter((account) => TRANSFER_KINDS.includes(accountKind(account)))
		.map((account) => ({ name: accountEntryName(account), value: String(account.accountId) }))
		.filter((entry) => matches(filter, entry.name));
	return { results };
}

/**
 * The key's trading accounts (GET /api/v1/account/type, type 1): its own, and a master key's sub
 * accounts, for the Account option of the order operations and the triggers.
 */
export async function searchTradingAccounts(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const accounts = (await pickerClient(this).request(ENDPOINTS.accountTypes, {})) as IDataObject[];
	const results = accounts
		.filter((account) => Number(account.accountType) === 1)
		.map((account) => ({ name: accountEntryName(account), value: String(account.accountId) }))
		.filter((entry) => matches(filter, entry.name));
	return { results };
}

/**
 * The open orders of the account the node acts on (the Account option, else the key's own trading
 * account), one page, newest first as the exchange gives them, to pick one by.
 */
export async function searchOpenOrders(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const client = pickerClient(this);
	let chosen: unknown;
	try {
		chosen = locatorValue(this.getCurrentNodeParameter('options.account'));
	} catch {
		chosen = undefined; // an operation without the Account option
	}
	const scope = await accountScope(
		client,
		this.getNode(),
		typeof chosen === 'string' && /^\d{1,20}$/.test(chosen) ? chosen : undefined,
	);
	const orders = (
		(await client.request(ENDPOINTS.openOrders, {
			qs: { accountId: scope.accountId, limit: LIMITS.ordersPageSize },
		})) as IDataObject[]
	).filter((order) => inScope(scope, order));
	const coins = await symbolCoins(client);
	const results = orders
		.filter((order) =>
			matches(filter, order.symbol, order.orderId, order.clientOrderId, order.side, order.type),
		)
		.map((order) => ({
			name: orderEntryName(order, coins.get(String(order.symbol))),
			value: String(order.orderId),
			description: `Client order ID ${String(order.clientOrderId)}, status ${String(order.status)}`,
		}));
	return { results };
}

/** The base and quote coin of each symbol, for the order list; none when the rules can't be read. */
async function symbolCoins(
	client: ServiceClient,
): Promise<Map<string, { base: string; quote: string }>> {
	const coins = new Map<string, { base: string; quote: string }>();
	try {
		for (const rule of (await readSymbolRules(client)).values()) {
			if (rule.baseAsset !== '' && rule.quoteAsset !== '')
				coins.set(rule.symbol, { base: rule.baseAsset, quote: rule.quoteAsset });
		}
	} catch {
		// The list names the symbol instead of its coins.
	}
	return coins;
}

/**
 * The exchange's futures contracts (exchange information's `contracts`, MENA site). One that cannot
 * be traded now says so in words after its coins, and is listed after those that can.
 */
export async function searchContracts(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const contracts = await readContracts(pickerClient(this));
	const entries = contracts
		.filter((contract) => matches(filter, contract.symbol, contract.baseAsset, contract.quoteAsset))
		.map((contract) => {
			const words = statusWords(contract.status);
			return {
				name: `${contract.symbol} (${contract.baseAsset}/${contract.quoteAsset})${words === undefined ? '' : ` · ${words}`}`,
				value: contract.symbol,
				status: contract.status,
			};
		});
	return { results: tradableFirst(entries).map(({ name, value }) => ({ name, value })) };
}
