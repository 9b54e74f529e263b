import { Module } from '@nestjs/common';
import { System1ConfigModule } from './config/config.module';
import { LoggingModule } from './logging/logging.module';
import { RoutingModule } from './routing/routing.module';

/** The container for `system1 route-hook`: it runs on every prompt, so it loads only what routing needs. */
@Module({ imports: [System1ConfigModule, LoggingModule, RoutingModule] })
export class RouteHookAppModule {}
