import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

const KIND_NAMES = {
	mainTrading: 'main trading',
	subTrading: 'sub trading',
	futures: 'futures',
	custody: 'custody',
	fiat: 'fiat',
	options: 'options',
	other: 'other',
};

/** What an account is for, in the words the editor and the output items use. */
export type AccountKind = keyof typeof KIND_NAMES;

const KINDS_BY_TYPE: Record<number, AccountKind> = {
	3: 'futures',
	5: 'custody',
	6: 'fiat',
	7: 'options',
};

/**
 * The exchange gives a main and a sub trading account the same accountType (1) and tells them
 * apart only by their label ("Main Trading Account", "Sub Main Trading Account").
 */
export function accountKind(account: IDataObject): AccountKind {
	const type = Number(account.accountType);
	if (type !== 1) return KINDS_BY_TYPE[type] ?? 'other';
	const label = typeof account.accountLabel === 'string' ? account.accountLabel : '';
	return /^sub\b/i.test(label.trim()) ? 'subTrading' : 'mainTrading';
}

export function accountKindName(kind: AccountKind): string {
	return KIND_NAMES[kind];
}

export function accountItem(account: IDataObject): IDataObject {
	return { ...account, kind: accountKind(account) };
}

/**
 * The one trading account an order read, lookup, cancel or catch-up acts on. A master key sees its
 * sub accounts' orders too, and client order IDs are unique per account only, so a sub account's
 * order can hold the very ID this node gave the main account's. The node therefore names the
 * account on every order request, and an answer for another account never answers, settles or
 * triggers anything. The key's own trading account unless the user picks another.
 */
export interface AccountScope {
	/** The trading account every order request names. */
	accountId: string;
	/** Whether the key sees other trading accounts too: an ID alone may name another's order. */
	shared: boolean;
}

/** Type 1 in the key's account list (UAE documentation): a spot trading account. */
export const isTradingAccount = (account: IDataObject): boolean =>
	Number(account.accountType) === 1;

/** `chosen` (the Account option, checked) or the key's own trading account. */
export async function accountScope(
	client: { keyAccounts(itemIndex?: number): Promise<IDataObject[]> },
	node: INode,
	chosen: string | undefined,
	itemIndex?: number,
): Promise<AccountScope> {
	const accounts = await client.keyAccounts(itemIndex);
	const trading = accounts.filter(isTradingAccount);
	const shared = trading.length > 1;
	if (chosen !== undefined && chosen !== '') {
		if (!trading.some((account) => String(account.accountId) === chosen))
			throw new NodeOperationError(
				node,
				`Account ${chosen} is not a trading account of this API key`,
				{
					description: `The key's trading accounts are ${trading.map((account) => String(account.accountId)).join(', ') || 'none'}. Pick one in the Account option (From List), or leave it empty for the key's own trading account.`,
					itemIndex,
				},
			);
		return { accountId: chosen, shared };
	}
	const own =
		trading.length === 1
			? trading
			: trading.filter((account) => accountKind(account) === 'mainTrading');
	if (own.length !== 1)
		throw new NodeOperationError(
			node,
			"Could not tell which trading account is the API key's own",
			{
				description: `The exchange lists ${trading.length} trading accounts for this key and ${own.length} of them as the main one, so the node cannot tell which account's orders are yours. Pick the account in the Account option.`,
				itemIndex,
			},
		);
	return { accountId: String(own[0].accountId), shared };
}

/** A record without `accountId` answers a request that named the account: it is that account's. */
export function inScope(scope: AccountScope, record: IDataObject): boolean {
	return record.accountId === undefined || String(record.accountId) === scope.accountId;
}

/**
 * The key's own futures account: its one type-3 account not labelled as a sub account's; none when
 * it has none or several (both triggers follow one futures account, or refuse).
 */
export function contractAccountOf(accounts: IDataObject[]): string | undefined {
	const own = accounts.filter(
		(account) =>
			Number(account.accountType) === 3 &&
			!/^sub\b/i.test(typeof account.accountLabel === 'string' ? account.accountLabel.trim() : ''),
	);
	return own.length === 1 ? String(own[0].accountId) : undefined;
}
