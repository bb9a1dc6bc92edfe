import { OrgArgs, SubgraphContext } from '@em/subgraph-kit';
import { Arg, Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { OrganisationType } from './organisation.types';
import { OrganisationsService } from './organisations.service';

@Resolver()
export class OrganisationsResolver {
  constructor(private readonly service: OrganisationsService) {}

  @Query(() => [OrganisationType], {
    description:
      'The organisations the caller may see: its memberships (an API key: its own; a platform administrator: all), by name.',
  })
  organisations(@Ctx() ctx: SubgraphContext) {
    return this.service.list(ctx.principal);
  }

  @Query(() => OrganisationType, { description: 'One organisation the caller belongs to.' })
  organisation(@Ctx() ctx: SubgraphContext, @Args() { orgId }: OrgArgs) {
    return this.service.details(ctx.principal, orgId);
  }

  @Mutation(() => OrganisationType, {
    description: 'Creates an organisation (platform administrators only); the caller becomes its first admin.',
  })
  createOrganisation(
    @Ctx() ctx: SubgraphContext,
    @Arg('name') name: string,
    @Arg('slug', () => String, { nullable: true }) slug?: string | null,
  ) {
    return this.service.create(ctx.principal, { name, slug }, ctx.principal.accountId ?? null);
  }

  @Mutation(() => OrganisationType, { description: 'Renames the organisation (its admins); the slug stays.' })
  renameOrganisation(@Ctx() ctx: SubgraphContext, @Args() { orgId }: OrgArgs, @Arg('name') name: string) {
    return this.service.rename(ctx.principal, orgId, name);
  }
}
