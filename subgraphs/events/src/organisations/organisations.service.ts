import { AppError, Principal } from '@em/core';
import {
  guardAccountOperation,
  guardOrganisationOperation,
  MembershipsRepository,
  OrganisationRecord,
  OrganisationsRepository,
} from '@em/core/data';
import { slug as validSlug, slugFromName, text } from '../events/event-settings';

export interface OrganisationView {
  id: number;
  name: string;
  slug: string;
  createdAt: Date;
  /** The caller's role in it (null: an API key, or a platform administrator who is no member). */
  role: 'admin' | 'user' | null;
}

export interface OrganisationRepositories {
  organisations: OrganisationsRepository;
  memberships: Pick<MembershipsRepository, 'upsert'>;
}

/** Organisations: created by platform administrators, renamed by their admins, listed as the caller may see them. */
export class OrganisationsService {
  constructor(private readonly repos: OrganisationRepositories) {}

  /** What the caller may see: an API key its organisation, an account its memberships, a platform administrator every organisation. */
  async list(principal: Principal): Promise<OrganisationView[]> {
    guardAccountOperation(principal, 'organisations');
    if (principal.kind === 'account' && !principal.scopes.includes('events:read'))
      throw new AppError('FORBIDDEN', 'The token lacks the scope events:read');
    const ids =
      principal.kind === 'api_key'
        ? [principal.orgId!]
        : principal.platformAdmin
          ? null
          : Object.keys(principal.orgRoles ?? {}).map(Number);
    return (await this.repos.organisations.list(ids)).map((o) => this.view(principal, o));
  }

  async details(principal: Principal, orgId: number): Promise<OrganisationView> {
    guardOrganisationOperation(principal, 'organisation', orgId);
    return this.view(principal, await this.find(orgId));
  }

  /** A new organisation (platform administrators); `adminAccountId` becomes its first admin. */
  async create(
    principal: Principal,
    input: { name: string; slug?: string | null },
    adminAccountId?: number | null,
  ): Promise<OrganisationView> {
    guardAccountOperation(principal, 'createOrganisation');
    const name = text('name', input.name ?? '', 200)!;
    const slug = input.slug ? validSlug(input.slug) : slugFromName(name);
    if (await this.repos.organisations.findBySlug(slug)) {
      throw new AppError(
        'CONFLICT',
        `An organisation with the slug ${slug} exists already${input.slug ? '' : '; choose a slug'}`,
        { field: 'slug' },
      );
    }
    const created = await this.repos.organisations.create({ name, slug });
    if (adminAccountId) await this.repos.memberships.upsert(created.id, adminAccountId, 'admin', 'active');
    return this.view(principal, created);
  }

  async rename(principal: Principal, orgId: number, name: string): Promise<OrganisationView> {
    guardOrganisationOperation(principal, 'renameOrganisation', orgId);
    const renamed = await this.repos.organisations.rename(orgId, text('name', name ?? '', 200)!);
    if (!renamed) throw new AppError('NOT_FOUND', 'Organisation not found');
    return this.view(principal, renamed);
  }

  private async find(orgId: number): Promise<OrganisationRecord> {
    const found = await this.repos.organisations.findById(orgId);
    if (!found) throw new AppError('NOT_FOUND', 'Organisation not found');
    return found;
  }

  private view(principal: Principal, o: OrganisationRecord): OrganisationView {
    return { ...o, role: principal.orgRoles?.[o.id] ?? null };
  }
}
