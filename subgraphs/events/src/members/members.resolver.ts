import { OrgArgs, SubgraphContext } from '@em/subgraph-kit';
import { Arg, Args, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { MemberType } from './member.types';
import { MembersService } from './members.service';

@Resolver()
export class MembersResolver {
  constructor(private readonly service: MembersService) {}

  @Query(() => [MemberType], { description: 'Members and pending invitations of the organisation (its admins).' })
  members(@Ctx() ctx: SubgraphContext, @Args() { orgId }: OrgArgs) {
    return this.service.list(ctx.principal, orgId);
  }

  @Mutation(() => MemberType, {
    description: 'Invites an e-mail address with a role (admin or user); pending until that account first signs in.',
  })
  inviteMember(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId }: OrgArgs,
    @Arg('email') email: string,
    @Arg('role') role: string,
  ) {
    return this.service.invite(ctx.principal, orgId, email, role);
  }

  @Mutation(() => MemberType, { description: "Changes a member's role; the last admin stays admin." })
  setMemberRole(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId }: OrgArgs,
    @Arg('accountId', () => Int) accountId: number,
    @Arg('role') role: string,
  ) {
    return this.service.setRole(ctx.principal, orgId, accountId, role);
  }

  @Mutation(() => Boolean, { description: 'Removes a member or an invitation; the last admin stays.' })
  removeMember(
    @Ctx() ctx: SubgraphContext,
    @Args() { orgId }: OrgArgs,
    @Arg('accountId', () => Int) accountId: number,
  ) {
    return this.service.remove(ctx.principal, orgId, accountId);
  }
}
