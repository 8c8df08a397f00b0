import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { readContracts } from '../futures/contracts';
import { readSymbolRules } from '../orders/symbolRules';
import { LIMITS } from '../constants';
import { accountScope, inScope } from '../helpers/accountScope';
import { accountKind, accountKindName, type AccountKind } from '../helpers/accounts';
import { locatorValue } from '../helpers/locator';
import { DEFAULT_RETRY_POLICY, ENDPOINTS, ServiceClient } from '../transport';

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

/** The exchange's trading pairs (exchange info, MENA site), with their coins; not trading ones say so. */
export async function searchSymbols(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const rules = await readSymbolRules(pickerClient(this));
	const results = [...rules.values()]
		.filter((rule) => matches(filter, rule.symbol, rule.baseAsset, rule.quoteAsset))
		.map((rule) => ({
			name: `${rule.symbol} (${rule.baseAsset}/${rule.quoteAsset}${rule.status === 'TRADING' ? '' : `, ${rule.status}`})`,
			value: rule.symbol,
		}))
		.sort(byName);
	return { results };
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
	const results = orders
		.filter((order) =>
			matches(filter, order.symbol, order.orderId, order.clientOrderId, order.side, order.type),
		)
		.map((order) => {
			const price = order.type === 'MARKET' ? 'market' : `@ ${String(order.price)}`;
			return {
				name: `${String(order.symbol)} ${String(order.side)} ${String(order.type)} ${String(order.origQty)} ${price} · ${String(order.orderId)}`,
				value: String(order.orderId),
				description: `Client order ID ${String(order.clientOrderId)}, status ${String(order.status)}`,
			};
		});
	return { results };
}

/**
 * The exchange's futures contracts (exchange information's `contracts`, MENA site). One that cannot
 * be traded now says so in words after its coins.
 */
export async function searchContracts(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const contracts = await readContracts(pickerClient(this));
	const results = contracts
		.filter((contract) => matches(filter, contract.symbol, contract.baseAsset, contract.quoteAsset))
		.map((contract) => ({
			name: `${contract.symbol} (${contract.baseAsset}/${contract.quoteAsset}${contract.status === 'TRADING' ? '' : `, ${contractStatusWords(contract.status)}`})`,
			value: contract.symbol,
		}))
		.sort(byName);
	return { results };
}

function contractStatusWords(status: string): string {
	if (status === 'HALT') return 'trading halted';
	if (status === 'IN_PREVIEW') return 'not trading yet';
	if (status === 'RESUMING') return 'trading resumes soon';
	return status;
}
