import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { accountKind } from './accounts';

/**
 * The one trading account an order read, lookup, cancel or catch-up acts on.
 *
 * A master key sees its sub accounts' orders too: without `accountId` the exchange's order lists
 * hold them, and its client order IDs are unique per account only, so a sub account's order can
 * hold the very ID this node gave the main account's. The node therefore names the account on
 * every order request it makes, and an answer for another account never answers, settles or
 * triggers anything. The account is the key's own trading account (the only trading account of a
 * sub key; the main one of a master key), unless the user picks another (the Account option).
 *
 * The key's accounts come from GET /api/v1/account/type (weight 5), which the client reads once per
 * process and key and keeps for LIMITS.accountScopeTtlMs (transport/index.ts `keyAccounts`).
 */
export interface AccountScope {
	/** The trading account every order request names. */
	accountId: string;
	/** Whether the key sees other trading accounts as well: then an order ID or a client order ID alone may name another account's order. */
	shared: boolean;
}

/** What reads the key's accounts: the service client (transport/index.ts `keyAccounts`). */
export interface KeyAccountsReader {
	keyAccounts(itemIndex?: number): Promise<IDataObject[]>;
}

function scopeError(node: INode, message: string, description: string, itemIndex?: number) {
	return new NodeOperationError(node, message, { description, itemIndex });
}

/**
 * The account the node acts on: `chosen` (the Account option, checked against the key's trading
 * accounts) or the key's own trading account.
 */
export async function accountScope(
	client: KeyAccountsReader,
	node: INode,
	chosen: string | undefined,
	itemIndex?: number,
): Promise<AccountScope> {
	const accounts = await client.keyAccounts(itemIndex);
	const trading = accounts.filter((account) => Number(account.accountType) === 1);
	const shared = trading.length > 1;
	if (chosen !== undefined && chosen !== '') {
		if (!trading.some((account) => String(account.accountId) === chosen))
			throw scopeError(
				node,
				`Account ${chosen} is not a trading account of this API key`,
				`The key's trading accounts are ${trading.map((account) => String(account.accountId)).join(', ') || 'none'}. Pick one in the Account option (From List), or leave it empty for the key's own trading account.`,
				itemIndex,
			);
		return { accountId: chosen, shared };
	}
	const own =
		trading.length === 1
			? trading
			: trading.filter((account) => accountKind(account) === 'mainTrading');
	if (own.length !== 1)
		throw scopeError(
			node,
			"Could not tell which trading account is the API key's own",
			`The exchange lists ${trading.length} trading accounts for this key and ${own.length} of them as the main one, so the node cannot tell which account's orders are yours. Pick the account in the Account option.`,
			itemIndex,
		);
	return { accountId: String(own[0].accountId), shared };
}

/**
 * Whether an order (or any record carrying `accountId`) belongs to the scope's account. A record
 * without `accountId` answers a request that named the account, so the exchange chose it for that
 * account.
 */
export function inScope(scope: AccountScope, record: IDataObject): boolean {
	return record.accountId === undefined || String(record.accountId) === scope.accountId;
}
