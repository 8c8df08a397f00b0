import type { IDataObject } from 'n8n-workflow';

/** What an account is for, in the words the editor and the output items use. */
export type AccountKind =
	| 'mainTrading'
	| 'subTrading'
	| 'futures'
	| 'custody'
	| 'fiat'
	| 'options'
	| 'other';

const KIND_NAMES: Record<AccountKind, string> = {
	mainTrading: 'main trading',
	subTrading: 'sub trading',
	futures: 'futures',
	custody: 'custody',
	fiat: 'fiat',
	options: 'options',
	other: 'other',
};

/**
 * The kind of one entry of GET /api/v1/account/type. The exchange gives a main and a sub trading
 * account the same accountType (1) and tells them apart only by their label ("Main Trading Account",
 * "Sub Main Trading Account"), so the label decides between the two.
 */
export function accountKind(account: IDataObject): AccountKind {
	const label = typeof account.accountLabel === 'string' ? account.accountLabel : '';
	const sub = /^sub\b/i.test(label.trim());
	switch (Number(account.accountType)) {
		case 1:
			return sub ? 'subTrading' : 'mainTrading';
		case 3:
			return 'futures';
		case 5:
			return 'custody';
		case 6:
			return 'fiat';
		case 7:
			return 'options';
		default:
			return 'other';
	}
}

/** "main trading", "custody", …: how a picker names the kind. */
export function accountKindName(kind: AccountKind): string {
	return KIND_NAMES[kind];
}

/** One account as Get Accounts outputs it: the exchange's fields, and its kind. */
export function accountItem(account: IDataObject): IDataObject {
	return { ...account, kind: accountKind(account) };
}
