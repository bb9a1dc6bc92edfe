import { ArgsType, Field, Int } from 'type-graphql';

// type-graphql lists a resolver's parameters last first; the fields below are declared in the
// order the composed schema has always printed them (`pageSize, page`, `eventId, orgId`), so
// replacing one @Arg per argument with these types leaves the API schema unchanged.

/** The organisation of an organisation-scoped root field. */
@ArgsType()
export class OrgArgs {
  @Field(() => Int) orgId!: number;
}

/** The organisation and its event of an event-scoped root field. */
@ArgsType()
export class OrgEventArgs {
  @Field(() => Int) eventId!: number;
  @Field(() => Int) orgId!: number;
}

/** Paging of a listing (defaults and limits: `resolvePage` in core). */
@ArgsType()
export class PageArgs {
  @Field(() => Int, { nullable: true }) pageSize?: number;
  @Field(() => Int, { nullable: true }) page?: number;
}
