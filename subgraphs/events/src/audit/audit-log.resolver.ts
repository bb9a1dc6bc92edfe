import { OrgArgs, SubgraphContext } from '@em/subgraph-kit';
import { Arg, Args, Ctx, Field, GraphQLISODateTime, ID, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { AuditLogService } from './audit-log.service';

@ObjectType('AuditEntry', { description: 'One change: who made it, what, when.' })
export class AuditEntryType {
  @Field(() => ID) id!: string;
  @Field(() => GraphQLISODateTime) at!: Date;
  @Field({ description: 'account, api_key or operator (the platform operator at the CLI).' }) actor!: string;
  @Field(() => Int, { nullable: true }) accountId!: number | null;
  @Field(() => String, { nullable: true }) accountEmail!: string | null;
  @Field(() => Int, { nullable: true }) apiKeyId!: number | null;
  @Field({ description: 'photo.add_bib, photo.remove_bib, photo.hide, photo.unhide, photo.delete, start_list.import.' })
  action!: string;
  @Field(() => Int, { nullable: true }) eventId!: number | null;
  @Field(() => String, { nullable: true }) photoId!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'What the action needs to be understood (the bib, the file name), as JSON text.',
  })
  detail!: string | null;
}

@ObjectType('AuditLogPage')
export class AuditLogPageType {
  @Field(() => [AuditEntryType]) entries!: AuditEntryType[];
  @Field(() => String, { nullable: true, description: 'Pass as `after` for the next (older) page.' }) endCursor!:
    string | null;
  @Field() hasNextPage!: boolean;
}

@Resolver()
export class AuditLogResolver {
  constructor(private readonly service: AuditLogService) {}

  @Query(() => AuditLogPageType, {
    description:
      "The organisation's audit log, newest first (of one event when given): its admins only; first 1-200, default 50.",
  })
  async auditLog(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId }: OrgArgs,
    @Arg('eventId', () => Int, { nullable: true }) eventId: number | null,
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
  ) {
    const page = await this.service.page(ctx.principal, orgId, eventId, first, after);
    return {
      ...page,
      entries: page.entries.map((e) => ({
        ...e,
        actor: e.actor.kind,
        accountId: e.actor.accountId,
        apiKeyId: e.actor.apiKeyId,
        detail: e.detail ? JSON.stringify(e.detail) : null,
      })),
    };
  }
}
