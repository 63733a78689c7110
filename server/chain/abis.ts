export {
  benchSpammerAbi,
  bondingCurveAbi,
  bundleBuyerAbi,
  devSwapRouterAbi,
  graduatorAbi,
  launchFactoryAbi,
  launchTokenAbi,
  uniswapV3FactoryAbi,
  uniswapV3PoolAbi,
  wrappedStableAbi,
} from '../../contracts/generated/abis.generated';
