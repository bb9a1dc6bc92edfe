import { Entity, OptionalProps, Enum, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/core';

@Entity({ tableName: 'organisations' })
export class Organisation {
  [OptionalProps]?: 'createdAt';

  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  @Unique()
  slug!: string;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();
}

/** A person who signs in with OAuth (issue "Accounts"): linked by the token's subject or e-mail. */
@Entity({ tableName: 'accounts' })
export class Account {
  [OptionalProps]?: 'createdAt' | 'active' | 'platformAdmin';

  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @Property({ type: 'text' })
  @Unique()
  email!: string;

  /** The `sub` claim of the identity provider, once the account has signed in. */
  @Property({ type: 'text', nullable: true })
  @Unique()
  subject?: string | null;

  @Property({ type: 'boolean', default: true })
  active: boolean = true;

  /** A platform administrator may create organisations and administer every one of them. */
  @Property({ type: 'boolean', default: false })
  platformAdmin: boolean = false;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();
}

export type MembershipRole = 'admin' | 'user';
export type MembershipStatus = 'active' | 'pending';

@Entity({ tableName: 'memberships' })
@Unique({ properties: ['organisation', 'account'] })
export class Membership {
  [OptionalProps]?: 'createdAt' | 'role' | 'status';

  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @ManyToOne(() => Organisation, { deleteRule: 'cascade' })
  organisation!: Organisation;

  @ManyToOne(() => Account, { deleteRule: 'cascade', index: true })
  account!: Account;

  @Enum({ items: ['admin', 'user'], type: 'text' })
  role: MembershipRole = 'user';

  /** Pending invitations are not memberships yet: the account call excludes them. */
  @Enum({ items: ['active', 'pending'], type: 'text' })
  status: MembershipStatus = 'active';

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();
}

/** An organisation's API key. Only its SHA-256 is stored; the key itself is shown once. */
@Entity({ tableName: 'api_keys' })
export class ApiKey {
  [OptionalProps]?: 'createdAt' | 'active' | 'allowedHosts' | 'readOnly';

  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @ManyToOne(() => Organisation, { deleteRule: 'cascade', index: true })
  organisation!: Organisation;

  @Property({ type: 'text' })
  name!: string;

  /** The first characters of the key, shown in listings so a person can tell keys apart. */
  @Property({ type: 'text' })
  prefix!: string;

  @Property({ type: 'text' })
  @Unique()
  keyHash!: string;

  @Property({ type: 'boolean', default: true })
  active: boolean = true;

  /** Hostnames (`example.org`, `*.example.org`) or client IP addresses; empty = any host. */
  @Property({ type: 'text[]', default: '{}' })
  allowedHosts: string[] = [];

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  lastUsedAt?: Date | null;

  /** Read calls allowed per rate-limit window for this key; null = the platform default. */
  @Property({ type: 'integer', nullable: true })
  rateLimit?: number | null;

  /** Reads and searches only (a browser key: public by nature); the pipeline and video uploads are refused. */
  @Property({ type: 'boolean', default: false })
  readOnly: boolean = false;

  /** The events the key may reach (a participant page's key: its event); null = every event of the organisation. */
  @Property({ type: 'integer[]', nullable: true })
  eventIds?: number[] | null;
}

/**
 * A local account's sign-in secret at the embedded identity provider: its password (scrypt), and a
 * pending set-password link (only the token's hash is stored).
 */
@Entity({ tableName: 'local_credentials' })
export class LocalCredential {
  [OptionalProps]?: 'updatedAt' | 'emailVerified';

  @PrimaryKey({ type: 'integer', autoincrement: false })
  accountId!: number;

  @Property({ type: 'text', nullable: true })
  passwordHash?: string | null;

  /** Set when the account proved it reads its mail (a set-password link), or an operator vouched for it. */
  @Property({ type: 'boolean', default: false })
  emailVerified: boolean = false;

  @Property({ type: 'text', nullable: true })
  @Unique()
  setPasswordTokenHash?: string | null;

  @Property({ type: 'timestamptz', nullable: true })
  setPasswordExpiresAt?: Date | null;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  updatedAt: Date = new Date();
}
