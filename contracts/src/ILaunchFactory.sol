// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice What curves and the graduator need from the factory. All launchpad events are
/// emitted by the factory so an indexer reads one address for launches, trades and graduations.
interface ILaunchFactory {
    struct TradeRecord {
        address token;
        address trader;
        bool isBuy;
        uint256 tokenAmount;
        uint256 reserveAmount;
        uint256 curveValue;
        uint256 protocolFee;
        uint256 creatorFee;
        uint256 virtualTokenReserve;
        uint256 virtualReserve;
        uint256 realTokenReserve;
        uint256 realReserve;
    }

    struct GraduationRecord {
        address token;
        address pool;
        uint256 tokenAmount;
        uint256 reserveAmount;
        uint256 stableAmount;
        uint256 burnedTokenAmount;
        uint128 liquidity;
        uint160 sqrtPriceX96;
    }

    function recordTrade(TradeRecord calldata record) external;
    function recordGraduation(GraduationRecord calldata record) external;
    function isCurve(address curve) external view returns (bool);
    function protocolFeeRecipient() external view returns (address);
}
